package dev.rwml.env.tau2.retail;

import dev.rwml.env.tau2.Address;
import dev.rwml.env.tau2.Args;
import dev.rwml.env.tau2.DomainTools;
import dev.rwml.env.tau2.Money;
import dev.rwml.env.tau2.Tau2Json;
import dev.rwml.env.tau2.ToolCall;
import dev.rwml.env.tau2.ToolError;
import dev.rwml.env.tau2.retail.RetailDb.Exchange;
import dev.rwml.env.tau2.retail.RetailDb.Order;
import dev.rwml.env.tau2.retail.RetailDb.OrderItem;
import dev.rwml.env.tau2.retail.RetailDb.Payment;
import dev.rwml.env.tau2.retail.RetailDb.PaymentMethod;
import dev.rwml.env.tau2.retail.RetailDb.Product;
import dev.rwml.env.tau2.retail.RetailDb.User;
import dev.rwml.env.tau2.retail.RetailDb.Variant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

/**
 * The retail domain's tools over a {@link RetailDb}. Every write validates everything before it
 * changes anything, so a refused call leaves the database as it was.
 */
public final class RetailTools extends DomainTools<RetailDb> {

    /** The two accepted cancellation reasons. */
    public static final Set<String> CANCEL_REASONS =
            Set.of("no longer needed", "ordered by mistake");

    private static final List<String> TOOLS =
            List.of(
                    "calculate",
                    "cancel_pending_order",
                    "exchange_delivered_order_items",
                    "find_user_id_by_email",
                    "find_user_id_by_name_zip",
                    "get_order_details",
                    "get_product_details",
                    "get_user_details",
                    "list_all_product_types",
                    "modify_pending_order_address",
                    "modify_pending_order_items",
                    "modify_pending_order_payment",
                    "modify_user_address",
                    "return_delivered_order_items",
                    "transfer_to_human_agents");

    private static final String POLICY =
            "You are a customer service agent of an online retail store. Authenticate the user"
                    + " first by email, or by first name, last name and zip code, even if they give"
                    + " a user id. Act only for the authenticated user. Only pending orders can be"
                    + " cancelled (reason 'no longer needed' or 'ordered by mistake') or modified"
                    + " (address, payment, or items once, to other available variants of the same"
                    + " product); only delivered orders can be returned or exchanged. Before any"
                    + " change, list its details and ask the user to confirm (yes/no). Transfer to a"
                    + " human agent only when the request is outside your tools.";

    private static final Pattern ORDER_ID = Pattern.compile("#W\\d{7}");
    private static final Pattern USER_ID = Pattern.compile("\\b[a-z]+_[a-z]+_\\d{3,4}\\b");
    private static final Pattern PRODUCT_ID = Pattern.compile("\"product_id\":\"(\\d{10})\"");
    private static final Pattern EMAIL = Pattern.compile("[a-z0-9._]+@[a-z0-9.]+\\.com");

    /** Tools over the given database (which they change). */
    public RetailTools(final RetailDb db) {
        super("retail", POLICY, TOOLS, db, RetailTools::new);
    }

    @Override
    protected String callDomainTool(final String name, final Args a) {
        return switch (name) {
            case "find_user_id_by_email" -> findUserIdByEmail(a.text("email"));
            case "find_user_id_by_name_zip" ->
                    findUserIdByNameZip(a.text("first_name"), a.text("last_name"), a.text("zip"));
            case "get_user_details" -> Tau2Json.write(user(a.text("user_id")));
            case "get_order_details" -> Tau2Json.write(order(a.text("order_id")));
            case "get_product_details" -> Tau2Json.write(product(a.text("product_id")));
            case "list_all_product_types" -> listAllProductTypes();
            case "cancel_pending_order" -> cancelPendingOrder(a.text("order_id"), a.text("reason"));
            case "modify_pending_order_address" ->
                    modifyPendingOrderAddress(a.text("order_id"), Address.from(a));
            case "modify_pending_order_items" ->
                    modifyPendingOrderItems(
                            a.text("order_id"),
                            a.texts("item_ids"),
                            a.texts("new_item_ids"),
                            a.text("payment_method_id"));
            case "modify_pending_order_payment" ->
                    modifyPendingOrderPayment(a.text("order_id"), a.text("payment_method_id"));
            case "modify_user_address" -> modifyUserAddress(a.text("user_id"), Address.from(a));
            case "exchange_delivered_order_items" ->
                    exchangeDeliveredOrderItems(
                            a.text("order_id"),
                            a.texts("item_ids"),
                            a.texts("new_item_ids"),
                            a.text("payment_method_id"));
            case "return_delivered_order_items" ->
                    returnDeliveredOrderItems(
                            a.text("order_id"), a.texts("item_ids"), a.text("payment_method_id"));
            default -> throw unknownTool(name);
        };
    }

    @Override
    public List<ToolCall> plausibleReads(final String seenText) {
        final List<ToolCall> calls = new ArrayList<>();
        calls.add(ToolCall.of("list_all_product_types"));
        for (final String id : lastMatches(ORDER_ID, seenText, MatchResult::group)) {
            calls.add(ToolCall.of("get_order_details", "order_id", id));
        }
        for (final String id : lastMatches(USER_ID, seenText, MatchResult::group)) {
            calls.add(ToolCall.of("get_user_details", "user_id", id));
        }
        for (final String id : lastMatches(PRODUCT_ID, seenText, m -> m.group(1))) {
            calls.add(ToolCall.of("get_product_details", "product_id", id));
        }
        for (final String email : lastMatches(EMAIL, seenText, MatchResult::group)) {
            calls.add(ToolCall.of("find_user_id_by_email", "email", email));
        }
        return calls;
    }

    private String findUserIdByEmail(final String email) {
        return db.users().values().stream()
                .filter(u -> u.email().equalsIgnoreCase(email))
                .map(User::userId)
                .findFirst()
                .orElseThrow(() -> ToolError.rule("User not found"));
    }

    private String findUserIdByNameZip(final String first, final String last, final String zip) {
        return db.users().values().stream()
                .filter(u -> u.name().firstName().equalsIgnoreCase(first))
                .filter(u -> u.name().lastName().equalsIgnoreCase(last))
                .filter(u -> u.address().zip().equals(zip))
                .map(User::userId)
                .findFirst()
                .orElseThrow(() -> ToolError.rule("User not found"));
    }

    private String listAllProductTypes() {
        final Map<String, String> types = new TreeMap<>();
        db.products().values().forEach(p -> types.put(p.name(), p.productId()));
        return Tau2Json.write(types);
    }

    private User user(final String userId) {
        return found(db.users().get(userId), "User not found");
    }

    private Order order(final String orderId) {
        return found(db.orders().get(orderId), "Order not found");
    }

    private Product product(final String productId) {
        return found(db.products().get(productId), "Product not found");
    }

    private PaymentMethod usersPaymentMethod(final Order order, final String paymentMethodId) {
        return found(
                user(order.userId()).paymentMethods().get(paymentMethodId),
                "Payment method not found");
    }

    private static void requirePending(final Order order) {
        if (!order.status().startsWith("pending")) {
            throw ToolError.rule("Non-pending order cannot be modified");
        }
    }

    private String cancelPendingOrder(final String orderId, final String reason) {
        final Order order = order(orderId);
        if (!order.status().equals("pending")) {
            throw ToolError.rule("Non-pending order cannot be cancelled");
        }
        if (!CANCEL_REASONS.contains(reason)) {
            throw ToolError.rule("Invalid reason: use 'no longer needed' or 'ordered by mistake'");
        }
        final List<Payment> history = new ArrayList<>(order.paymentHistory());
        final Map<String, Double> giftCardRefunds = new HashMap<>();
        for (final Payment payment : order.paymentHistory()) {
            if (payment.transactionType().equals("payment")) {
                history.add(new Payment("refund", payment.amount(), payment.paymentMethodId()));
                giftCardRefunds.merge(payment.paymentMethodId(), payment.amount(), Double::sum);
            }
        }
        User user = user(order.userId());
        for (final Map.Entry<String, Double> refund : giftCardRefunds.entrySet()) {
            final PaymentMethod method = user.paymentMethods().get(refund.getKey());
            if (method != null && method.source().equals("gift_card")) {
                user =
                        user.withPaymentMethod(
                                method.withBalance(
                                        Money.cents(method.balance() + refund.getValue())));
            }
        }
        final Order cancelled = order.cancelled(reason, history);
        db.users().put(user.userId(), user);
        db.orders().put(orderId, cancelled);
        return Tau2Json.write(cancelled);
    }

    private String modifyPendingOrderAddress(final String orderId, final Address address) {
        final Order order = order(orderId);
        requirePending(order);
        final Order modified = order.withAddress(address);
        db.orders().put(orderId, modified);
        return Tau2Json.write(modified);
    }

    private String modifyUserAddress(final String userId, final Address address) {
        final User modified = user(userId).withAddress(address);
        db.users().put(userId, modified);
        return Tau2Json.write(modified);
    }

    private String modifyPendingOrderPayment(final String orderId, final String paymentMethodId) {
        final Order order = order(orderId);
        requirePending(order);
        final PaymentMethod method = usersPaymentMethod(order, paymentMethodId);
        if (order.paymentHistory().size() != 1
                || !order.paymentHistory().get(0).transactionType().equals("payment")) {
            throw ToolError.rule("There should be exactly one payment for a pending order");
        }
        final Payment current = order.paymentHistory().get(0);
        if (current.paymentMethodId().equals(paymentMethodId)) {
            throw ToolError.rule("The new payment method should be different from the current one");
        }
        final double amount = current.amount();
        if (method.source().equals("gift_card") && method.balance() < amount) {
            throw ToolError.rule("Insufficient gift card balance to pay for the order");
        }
        final List<Payment> history = new ArrayList<>(order.paymentHistory());
        history.add(new Payment("payment", amount, paymentMethodId));
        history.add(new Payment("refund", amount, current.paymentMethodId()));
        User user = user(order.userId());
        if (method.source().equals("gift_card")) {
            user =
                    user.withPaymentMethod(
                            method.withBalance(Money.cents(method.balance() - amount)));
        }
        final PaymentMethod old = user.paymentMethods().get(current.paymentMethodId());
        if (old != null && old.source().equals("gift_card")) {
            user = user.withPaymentMethod(old.withBalance(Money.cents(old.balance() + amount)));
        }
        final Order modified = order.withStatusAndPayments(order.status(), history);
        db.users().put(user.userId(), user);
        db.orders().put(orderId, modified);
        return Tau2Json.write(modified);
    }

    /** Checks that each old item is in the order and maps to an available variant of it. */
    private List<Variant> replacementVariants(
            final Order order, final List<String> itemIds, final List<String> newItemIds) {
        if (itemIds.size() != newItemIds.size()) {
            throw ToolError.rule("The number of items to be exchanged should match");
        }
        final List<OrderItem> remaining = new ArrayList<>(order.items());
        final List<Variant> variants = new ArrayList<>();
        for (int i = 0; i < itemIds.size(); i++) {
            final String itemId = itemIds.get(i);
            final OrderItem item =
                    remaining.stream()
                            .filter(it -> it.itemId().equals(itemId))
                            .findFirst()
                            .orElseThrow(() -> ToolError.rule(itemId + " not found"));
            remaining.remove(item);
            final Variant variant =
                    found(
                            product(item.productId()).variants().get(newItemIds.get(i)),
                            "New item " + newItemIds.get(i) + " not found or available");
            if (!variant.available()) {
                throw ToolError.rule("New item " + newItemIds.get(i) + " not available");
            }
            variants.add(variant);
        }
        return variants;
    }

    private static double priceDifference(
            final Order order, final List<String> itemIds, final List<Variant> variants) {
        double diff = 0;
        final List<OrderItem> remaining = new ArrayList<>(order.items());
        for (int i = 0; i < itemIds.size(); i++) {
            final String itemId = itemIds.get(i);
            final OrderItem item =
                    remaining.stream().filter(it -> it.itemId().equals(itemId)).findFirst().get();
            remaining.remove(item);
            diff += variants.get(i).price() - item.price();
        }
        return Money.cents(diff);
    }

    private static void requireGiftCardCovers(final PaymentMethod method, final double diff) {
        if (method.source().equals("gift_card") && method.balance() < diff) {
            throw ToolError.rule("Insufficient gift card balance to pay for the price difference");
        }
    }

    private String modifyPendingOrderItems(
            final String orderId,
            final List<String> itemIds,
            final List<String> newItemIds,
            final String paymentMethodId) {
        final Order order = order(orderId);
        if (!order.status().equals("pending")) {
            throw ToolError.rule("Non-pending order cannot be modified");
        }
        final List<Variant> variants = replacementVariants(order, itemIds, newItemIds);
        final PaymentMethod method = usersPaymentMethod(order, paymentMethodId);
        final double diff = priceDifference(order, itemIds, variants);
        requireGiftCardCovers(method, diff);
        final List<Payment> history = new ArrayList<>(order.paymentHistory());
        if (diff != 0) {
            history.add(
                    new Payment(diff > 0 ? "payment" : "refund", Math.abs(diff), paymentMethodId));
        }
        final List<OrderItem> items = new ArrayList<>(order.items());
        for (int i = 0; i < itemIds.size(); i++) {
            final String itemId = itemIds.get(i);
            final Variant v = variants.get(i);
            for (int j = 0; j < items.size(); j++) {
                final OrderItem it = items.get(j);
                if (it.itemId().equals(itemId)) {
                    items.set(
                            j,
                            new OrderItem(
                                    it.name(), it.productId(), v.itemId(), v.price(), v.options()));
                    break;
                }
            }
        }
        User user = user(order.userId());
        if (method.source().equals("gift_card")) {
            user = user.withPaymentMethod(method.withBalance(Money.cents(method.balance() - diff)));
        }
        final Order modified = order.withItems(items, "pending (item modified)", history);
        db.users().put(user.userId(), user);
        db.orders().put(orderId, modified);
        return Tau2Json.write(modified);
    }

    private String exchangeDeliveredOrderItems(
            final String orderId,
            final List<String> itemIds,
            final List<String> newItemIds,
            final String paymentMethodId) {
        final Order order = order(orderId);
        if (!order.status().equals("delivered")) {
            throw ToolError.rule("Non-delivered order cannot be exchanged");
        }
        final List<Variant> variants = replacementVariants(order, itemIds, newItemIds);
        final PaymentMethod method = usersPaymentMethod(order, paymentMethodId);
        final double diff = priceDifference(order, itemIds, variants);
        requireGiftCardCovers(method, diff);
        final Order modified =
                order.exchangeRequested(
                        new Exchange(
                                itemIds.stream().sorted().toList(),
                                newItemIds.stream().sorted().toList(),
                                paymentMethodId,
                                diff));
        db.orders().put(orderId, modified);
        return Tau2Json.write(modified);
    }

    private String returnDeliveredOrderItems(
            final String orderId, final List<String> itemIds, final String paymentMethodId) {
        final Order order = order(orderId);
        if (!order.status().equals("delivered")) {
            throw ToolError.rule("Non-delivered order cannot be returned");
        }
        final PaymentMethod method = usersPaymentMethod(order, paymentMethodId);
        final String original = order.paymentHistory().get(0).paymentMethodId();
        if (!method.source().equals("gift_card") && !paymentMethodId.equals(original)) {
            throw ToolError.rule(
                    "Payment method should be either the original payment method or a gift card");
        }
        final List<OrderItem> remaining = new ArrayList<>(order.items());
        for (final String itemId : itemIds) {
            final OrderItem item =
                    remaining.stream()
                            .filter(it -> it.itemId().equals(itemId))
                            .findFirst()
                            .orElseThrow(() -> ToolError.rule("Some item not found"));
            remaining.remove(item);
        }
        final Order modified =
                order.returnRequested(itemIds.stream().sorted().toList(), paymentMethodId);
        db.orders().put(orderId, modified);
        return Tau2Json.write(modified);
    }
}
