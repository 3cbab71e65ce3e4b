package dev.rwml.env.tau2.retail;

import dev.rwml.env.tau2.Address;
import dev.rwml.env.tau2.Fakes;
import dev.rwml.env.tau2.Money;
import dev.rwml.env.tau2.Name;
import dev.rwml.env.tau2.retail.RetailDb.Fulfillment;
import dev.rwml.env.tau2.retail.RetailDb.Order;
import dev.rwml.env.tau2.retail.RetailDb.OrderItem;
import dev.rwml.env.tau2.retail.RetailDb.Payment;
import dev.rwml.env.tau2.retail.RetailDb.PaymentMethod;
import dev.rwml.env.tau2.retail.RetailDb.Product;
import dev.rwml.env.tau2.retail.RetailDb.User;
import dev.rwml.env.tau2.retail.RetailDb.Variant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

/** Generates retail databases (products, users and their orders) from a seeded generator. */
public final class RetailDbGenerator {

    private record ProductType(String name, double basePrice, Map<String, List<String>> options) {}

    private static final List<ProductType> CATALOG =
            List.of(
                    new ProductType(
                            "T-Shirt",
                            25,
                            Map.of(
                                    "color", List.of("red", "blue", "black", "white"),
                                    "size", List.of("S", "M", "L", "XL"))),
                    new ProductType(
                            "Water Bottle",
                            20,
                            Map.of(
                                    "capacity", List.of("500ml", "750ml", "1000ml"),
                                    "material", List.of("plastic", "stainless steel", "glass"))),
                    new ProductType(
                            "Desk Lamp",
                            60,
                            Map.of(
                                    "color", List.of("black", "white", "silver"),
                                    "power source", List.of("battery", "USB", "AC adapter"))),
                    new ProductType(
                            "Running Shoes",
                            110,
                            Map.of(
                                    "size", List.of("8", "9", "10", "11"),
                                    "material", List.of("leather", "synthetic", "mesh"))),
                    new ProductType(
                            "Headphones",
                            150,
                            Map.of(
                                    "type", List.of("on-ear", "over-ear", "in-ear"),
                                    "connectivity", List.of("wired", "wireless"))),
                    new ProductType(
                            "Backpack",
                            80,
                            Map.of(
                                    "color", List.of("black", "grey", "navy"),
                                    "size", List.of("small", "medium", "large"))),
                    new ProductType(
                            "Coffee Maker",
                            120,
                            Map.of(
                                    "capacity", List.of("1 cup", "4 cups", "8 cups"),
                                    "type", List.of("drip", "espresso", "french press"))),
                    new ProductType(
                            "Jigsaw Puzzle",
                            30,
                            Map.of(
                                    "pieces", List.of("500", "1000", "2000"),
                                    "theme", List.of("animals", "art", "fantasy"))));

    private static final int USERS = 10;

    private RetailDbGenerator() {}

    /** A database: the eight product types, ten users and their orders. */
    public static RetailDb database(final SplittableRandom rng) {
        final RetailDb db = new RetailDb(new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
        final Set<String> ids = new HashSet<>();
        for (final ProductType type : CATALOG) {
            final Product product = product(rng, type, ids);
            db.products().put(product.productId(), product);
        }
        final Set<String> nameZips = new HashSet<>();
        while (db.users().size() < USERS) {
            final Name name = Fakes.name(rng);
            final Address address = Fakes.address(rng);
            final String userId = Fakes.userId(rng, name);
            if (!ids.add(userId) || !nameZips.add(name + address.zip())) {
                continue;
            }
            final Map<String, PaymentMethod> methods = paymentMethods(rng, ids);
            final List<String> orderIds = new ArrayList<>();
            final int orders = 2 + rng.nextInt(3);
            for (int i = 0; i < orders; i++) {
                final Order order = order(rng, db, userId, address, methods, ids);
                db.orders().put(order.orderId(), order);
                orderIds.add(order.orderId());
            }
            final String email = Fakes.email(rng, name);
            db.users().put(userId, new User(userId, name, address, email, methods, orderIds));
        }
        return db;
    }

    /**
     * {@code n} digits that no other id of the database has; a prefix the caller adds does not
     * count, so {@code #W1234567} and {@code paypal_1234567} cannot both exist.
     */
    private static String uniqueDigits(
            final SplittableRandom rng, final int n, final Set<String> ids) {
        return Fakes.unique(ids, () -> Fakes.digits(rng, n));
    }

    private static Product product(
            final SplittableRandom rng, final ProductType type, final Set<String> ids) {
        final List<Map<String, String>> combos = new ArrayList<>();
        combos.add(new TreeMap<>());
        for (final String key : new TreeMap<>(type.options()).keySet()) {
            final List<Map<String, String>> next = new ArrayList<>();
            for (final Map<String, String> combo : combos) {
                for (final String value : type.options().get(key)) {
                    final Map<String, String> extended = new TreeMap<>(combo);
                    extended.put(key, value);
                    next.add(extended);
                }
            }
            combos.clear();
            combos.addAll(next);
        }
        final Map<String, Variant> variants = new TreeMap<>();
        final int count = 4 + rng.nextInt(3);
        for (int i = 0; i < count && !combos.isEmpty(); i++) {
            final Map<String, String> options = combos.remove(rng.nextInt(combos.size()));
            final String itemId = uniqueDigits(rng, 10, ids);
            final double price = Money.cents(type.basePrice() * (0.8 + rng.nextDouble() * 0.5));
            variants.put(itemId, new Variant(itemId, options, rng.nextInt(5) != 0, price));
        }
        return new Product(type.name(), uniqueDigits(rng, 10, ids), variants);
    }

    private static Map<String, PaymentMethod> paymentMethods(
            final SplittableRandom rng, final Set<String> ids) {
        final Map<String, PaymentMethod> methods = new TreeMap<>();
        final String card = "credit_card_" + uniqueDigits(rng, 7, ids);
        methods.put(card, PaymentMethod.creditCard(card, Fakes.creditCard(rng)));
        if (rng.nextBoolean()) {
            final String paypal = "paypal_" + uniqueDigits(rng, 7, ids);
            methods.put(paypal, new PaymentMethod("paypal", paypal, null, null, null));
        }
        if (rng.nextBoolean()) {
            final String gift = "gift_card_" + uniqueDigits(rng, 7, ids);
            methods.put(
                    gift,
                    new PaymentMethod("gift_card", gift, null, null, (double) rng.nextInt(300)));
        }
        return methods;
    }

    private static Order order(
            final SplittableRandom rng,
            final RetailDb db,
            final String userId,
            final Address address,
            final Map<String, PaymentMethod> methods,
            final Set<String> ids) {
        final List<Product> products = new ArrayList<>(db.products().values());
        final List<OrderItem> items = new ArrayList<>();
        final int count = 1 + rng.nextInt(3);
        for (int i = 0; i < count; i++) {
            final Product product = products.remove(rng.nextInt(products.size()));
            final Variant v = Fakes.pick(rng, List.copyOf(product.variants().values()));
            items.add(
                    new OrderItem(
                            product.name(),
                            product.productId(),
                            v.itemId(),
                            v.price(),
                            v.options()));
        }
        final double total = Money.cents(items.stream().mapToDouble(OrderItem::price).sum());
        final List<PaymentMethod> payable =
                methods.values().stream()
                        .filter(m -> !m.source().equals("gift_card") || m.balance() >= total)
                        .toList();
        final PaymentMethod method = Fakes.pick(rng, payable);
        final String status =
                Fakes.pick(
                        rng,
                        List.of(
                                "pending",
                                "pending",
                                "pending",
                                "processed",
                                "delivered",
                                "delivered",
                                "delivered",
                                "cancelled",
                                "pending (item modified)"));
        final List<Fulfillment> fulfillments =
                status.equals("processed") || status.equals("delivered")
                        ? List.of(
                                new Fulfillment(
                                        List.of(Fakes.digits(rng, 12)),
                                        items.stream().map(OrderItem::itemId).toList()))
                        : List.of();
        final List<Payment> payments = new ArrayList<>();
        payments.add(new Payment("payment", total, method.id()));
        if (status.equals("cancelled")) {
            payments.add(new Payment("refund", total, method.id()));
        }
        return new Order(
                "#W" + uniqueDigits(rng, 7, ids),
                userId,
                address,
                items,
                fulfillments,
                status,
                payments,
                status.equals("cancelled") ? "no longer needed" : null,
                null,
                null,
                null);
    }
}
