package dev.rwml.env.tau2.retail;

import dev.rwml.env.StableMaps;
import dev.rwml.env.tau2.Address;
import dev.rwml.env.tau2.CreditCard;
import dev.rwml.env.tau2.DomainDb;
import dev.rwml.env.tau2.Name;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The retail database: users, products and orders keyed by id. The maps are mutable (tools replace
 * entries), the entries are immutable records, so a copy is three map copies and two databases are
 * equal exactly when their data are.
 */
public record RetailDb(
        SortedMap<String, User> users,
        SortedMap<String, Product> products,
        SortedMap<String, Order> orders)
        implements DomainDb<RetailDb> {

    @Override
    public RetailDb copy() {
        return new RetailDb(new TreeMap<>(users), new TreeMap<>(products), new TreeMap<>(orders));
    }

    /** A stored payment method: {@code credit_card}, {@code paypal} or {@code gift_card}. */
    public record PaymentMethod(
            String source, String id, String brand, String lastFour, Double balance) {

        /** The credit card {@code id}. */
        public static PaymentMethod creditCard(final String id, final CreditCard card) {
            return new PaymentMethod("credit_card", id, card.brand(), card.lastFour(), null);
        }

        /** How the user would name it, e.g. {@code my visa credit card ending in 1234}. */
        public String describe() {
            return switch (source) {
                case "credit_card" -> "my " + brand + " credit card ending in " + lastFour;
                case "gift_card" -> "my gift card";
                default -> "my paypal account";
            };
        }

        /** The same method with another gift-card balance. */
        public PaymentMethod withBalance(final double newBalance) {
            return new PaymentMethod(source, id, brand, lastFour, newBalance);
        }
    }

    /** A customer. */
    public record User(
            String userId,
            Name name,
            Address address,
            String email,
            Map<String, PaymentMethod> paymentMethods,
            List<String> orders) {

        /** Copies the collections. */
        public User {
            paymentMethods = StableMaps.sorted(paymentMethods);
            orders = List.copyOf(orders);
        }

        /** The same user with another default address. */
        public User withAddress(final Address newAddress) {
            return new User(userId, name, newAddress, email, paymentMethods, orders);
        }

        /** The same user with one payment method replaced. */
        public User withPaymentMethod(final PaymentMethod method) {
            final Map<String, PaymentMethod> methods = new TreeMap<>(paymentMethods);
            methods.put(method.id(), method);
            return new User(userId, name, address, email, methods, orders);
        }
    }

    /** One purchasable variant of a product. */
    public record Variant(
            String itemId, Map<String, String> options, boolean available, double price) {

        /** Copies the options. */
        public Variant {
            options = StableMaps.sorted(options);
        }
    }

    /** A product type with its variants keyed by item id. */
    public record Product(String name, String productId, Map<String, Variant> variants) {

        /** Copies the variants. */
        public Product {
            variants = StableMaps.sorted(variants);
        }
    }

    /** An item line of an order. */
    public record OrderItem(
            String name,
            String productId,
            String itemId,
            double price,
            Map<String, String> options) {

        /** Copies the options. */
        public OrderItem {
            options = StableMaps.sorted(options);
        }
    }

    /** A shipment of some of an order's items. */
    public record Fulfillment(List<String> trackingId, List<String> itemIds) {

        /** Copies the lists. */
        public Fulfillment {
            trackingId = List.copyOf(trackingId);
            itemIds = List.copyOf(itemIds);
        }
    }

    /** A payment or refund of an order. */
    public record Payment(String transactionType, double amount, String paymentMethodId) {}

    /** What an exchange request recorded on a delivered order. */
    public record Exchange(
            List<String> exchangeItems,
            List<String> exchangeNewItems,
            String exchangePaymentMethodId,
            double exchangePriceDifference) {

        /** Copies the lists. */
        public Exchange {
            exchangeItems = List.copyOf(exchangeItems);
            exchangeNewItems = List.copyOf(exchangeNewItems);
        }
    }

    /** An order. Cancellation, exchange and return fields are null until those happen. */
    public record Order(
            String orderId,
            String userId,
            Address address,
            List<OrderItem> items,
            List<Fulfillment> fulfillments,
            String status,
            List<Payment> paymentHistory,
            String cancelReason,
            Exchange exchange,
            List<String> returnItems,
            String returnPaymentMethodId) {

        /** Copies the lists. */
        public Order {
            items = List.copyOf(items);
            fulfillments = List.copyOf(fulfillments);
            paymentHistory = List.copyOf(paymentHistory);
            returnItems = returnItems == null ? null : List.copyOf(returnItems);
        }

        /** A new order with no cancellation, exchange or return. */
        public static Order placed(
                final String orderId,
                final String userId,
                final Address address,
                final List<OrderItem> items,
                final List<Fulfillment> fulfillments,
                final String status,
                final List<Payment> paymentHistory) {
            return new Order(
                    orderId,
                    userId,
                    address,
                    items,
                    fulfillments,
                    status,
                    paymentHistory,
                    null,
                    null,
                    null,
                    null);
        }

        /** The same order with another status and payment history. */
        public Order withStatusAndPayments(final String newStatus, final List<Payment> payments) {
            return edited(
                    draft -> {
                        draft.status = newStatus;
                        draft.paymentHistory = payments;
                    });
        }

        /** The same order with another shipping address. */
        public Order withAddress(final Address newAddress) {
            return edited(draft -> draft.address = newAddress);
        }

        /** The same order, cancelled for a reason, with the given payment history. */
        public Order cancelled(final String reason, final List<Payment> payments) {
            return edited(
                    draft -> {
                        draft.status = "cancelled";
                        draft.paymentHistory = payments;
                        draft.cancelReason = reason;
                    });
        }

        /** The same order with new items, status and payment history. */
        public Order withItems(
                final List<OrderItem> newItems,
                final String newStatus,
                final List<Payment> payments) {
            return edited(
                    draft -> {
                        draft.items = newItems;
                        draft.status = newStatus;
                        draft.paymentHistory = payments;
                    });
        }

        /** The same order with an exchange requested. */
        public Order exchangeRequested(final Exchange requested) {
            return edited(
                    draft -> {
                        draft.status = "exchange requested";
                        draft.exchange = requested;
                    });
        }

        /** The same order with a return requested. */
        public Order returnRequested(final List<String> itemIds, final String paymentMethodId) {
            return edited(
                    draft -> {
                        draft.status = "return requested";
                        draft.returnItems = itemIds;
                        draft.returnPaymentMethodId = paymentMethodId;
                    });
        }

        /** This order with the changes one edit makes to a draft of its changeable fields. */
        private Order edited(final Consumer<Draft> edit) {
            final Draft draft = new Draft(this);
            edit.accept(draft);
            return new Order(
                    orderId,
                    userId,
                    draft.address,
                    draft.items,
                    fulfillments,
                    draft.status,
                    draft.paymentHistory,
                    draft.cancelReason,
                    draft.exchange,
                    draft.returnItems,
                    draft.returnPaymentMethodId);
        }

        /**
         * The fields an order's life changes, starting from an order's values; the record stays
         * immutable while each {@code with...} method sets only what it changes.
         */
        private static final class Draft {
            private Address address;
            private List<OrderItem> items;
            private String status;
            private List<Payment> paymentHistory;
            private String cancelReason;
            private Exchange exchange;
            private List<String> returnItems;
            private String returnPaymentMethodId;

            private Draft(final Order order) {
                address = order.address;
                items = order.items;
                status = order.status;
                paymentHistory = order.paymentHistory;
                cancelReason = order.cancelReason;
                exchange = order.exchange;
                returnItems = order.returnItems;
                returnPaymentMethodId = order.returnPaymentMethodId;
            }
        }

        /** The sum of the item prices. */
        public double total() {
            return dev.rwml.env.tau2.Money.cents(
                    items.stream().mapToDouble(OrderItem::price).sum());
        }
    }
}
