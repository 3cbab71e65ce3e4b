package dev.rwml.env.tau2.retail;

import dev.rwml.env.tau2.Address;
import dev.rwml.env.tau2.Fakes;
import dev.rwml.env.tau2.InfoKind;
import dev.rwml.env.tau2.Money;
import dev.rwml.env.tau2.Name;
import dev.rwml.env.tau2.TaskBuilder;
import dev.rwml.env.tau2.TaskKinds;
import dev.rwml.env.tau2.Tau2Task;
import dev.rwml.env.tau2.ToolCall;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** Generates retail databases and tasks (with gold plans) from a seeded generator. */
public final class RetailGenerator {

    /** The task kinds, in the order the generator tries them. */
    public static final List<String> KINDS =
            List.of(
                    "cancel_pending_order",
                    "modify_pending_order_address",
                    "modify_pending_order_payment",
                    "modify_pending_order_items",
                    "return_delivered_order_items",
                    "exchange_delivered_order_items",
                    "modify_user_address",
                    "order_status",
                    "transfer_to_human_agents");

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

    private RetailGenerator() {}

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
            final String email =
                    name.firstName().toLowerCase()
                            + "."
                            + name.lastName().toLowerCase()
                            + Fakes.digits(rng, 4)
                            + "@example.com";
            db.users().put(userId, new User(userId, name, address, email, methods, orderIds));
        }
        return db;
    }

    private static String uniqueDigits(
            final SplittableRandom rng, final int n, final Set<String> ids) {
        String id;
        do {
            id = Fakes.digits(rng, n);
        } while (!ids.add(id));
        return id;
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
        methods.put(
                card,
                new PaymentMethod(
                        "credit_card",
                        card,
                        rng.nextBoolean() ? "visa" : "mastercard",
                        Fakes.digits(rng, 4),
                        null));
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

    /** A task of a kind that this database supports, chosen at random. */
    public static Tau2Task task(final String id, final RetailDb db, final SplittableRandom rng) {
        return TaskKinds.firstFitting(id, KINDS, rng, kind -> task(id, kind, db, rng));
    }

    /** A task of the given kind, or empty when no user or order of the database fits it. */
    public static Optional<Tau2Task> task(
            final String id, final String kind, final RetailDb db, final SplittableRandom rng) {
        return switch (kind) {
            case "cancel_pending_order" ->
                    forOrder(db, rng, o -> o.status().equals("pending"))
                            .map(o -> cancel(orderLookedUp(id, kind, db, rng, o), rng, o));
            case "modify_pending_order_address" ->
                    forOrder(db, rng, o -> o.status().startsWith("pending"))
                            .map(o -> modifyAddress(orderLookedUp(id, kind, db, rng, o), rng, o));
            case "modify_pending_order_payment" ->
                    forOrder(
                                    db,
                                    rng,
                                    o ->
                                            o.status().startsWith("pending")
                                                    && o.paymentHistory().size() == 1
                                                    && otherMethod(db, o).isPresent())
                            .map(o -> modifyPayment(orderLookedUp(id, kind, db, rng, o), db, o));
            case "modify_pending_order_items" ->
                    forOrder(
                                    db,
                                    rng,
                                    o ->
                                            o.status().equals("pending")
                                                    && swappable(db, o).isPresent())
                            .map(o -> swapItem(orderLookedUp(id, kind, db, rng, o), db, o, false));
            case "exchange_delivered_order_items" ->
                    forOrder(
                                    db,
                                    rng,
                                    o ->
                                            o.status().equals("delivered")
                                                    && swappable(db, o).isPresent())
                            .map(o -> swapItem(orderLookedUp(id, kind, db, rng, o), db, o, true));
            case "return_delivered_order_items" ->
                    forOrder(db, rng, o -> o.status().equals("delivered"))
                            .map(o -> returnItems(orderLookedUp(id, kind, db, rng, o), rng, o));
            case "modify_user_address" ->
                    Optional.of(anyOrder(db, rng))
                            .map(o -> userAddress(authenticated(id, kind, db, rng, o), rng, o));
            case "order_status" ->
                    Optional.of(anyOrder(db, rng))
                            .map(o -> status(orderLookedUp(id, kind, db, rng, o), o));
            case "transfer_to_human_agents" ->
                    Optional.of(anyOrder(db, rng))
                            .map(o -> transfer(authenticated(id, kind, db, rng, o), o));
            default -> throw new IllegalArgumentException("unknown retail task kind " + kind);
        };
    }

    private static Order anyOrder(final RetailDb db, final SplittableRandom rng) {
        return Fakes.pick(rng, List.copyOf(db.orders().values()));
    }

    private static Optional<Order> forOrder(
            final RetailDb db, final SplittableRandom rng, final Predicate<Order> fits) {
        return Fakes.pickFitting(rng, db.orders().values(), fits);
    }

    private static Optional<PaymentMethod> otherMethod(final RetailDb db, final Order order) {
        final Payment current = order.paymentHistory().get(0);
        return db.users().get(order.userId()).paymentMethods().values().stream()
                .filter(m -> !m.id().equals(current.paymentMethodId()))
                .filter(m -> !m.source().equals("gift_card") || m.balance() >= current.amount())
                .findFirst();
    }

    private record Swap(OrderItem item, Variant replacement) {}

    private static Optional<Swap> swappable(final RetailDb db, final Order order) {
        for (final OrderItem item : order.items()) {
            final Optional<Variant> other =
                    db.products().get(item.productId()).variants().values().stream()
                            .filter(v -> v.available() && !v.itemId().equals(item.itemId()))
                            .findFirst();
            if (other.isPresent()) {
                return Optional.of(new Swap(item, other.get()));
            }
        }
        return Optional.empty();
    }

    /**
     * A task for the order's user that starts by authenticating by email, or (when the user forgot
     * it) by name and zip.
     */
    private static TaskBuilder authenticated(
            final String id,
            final String kind,
            final RetailDb db,
            final SplittableRandom rng,
            final Order order) {
        final TaskBuilder b = new TaskBuilder(id, kind);
        final User user = db.users().get(order.userId());
        if (rng.nextInt(3) != 0) {
            b.ask(InfoKind.EMAIL, "Sure, my email is " + user.email() + ".");
            b.call(ToolCall.of("find_user_id_by_email", "email", user.email()));
        } else {
            b.askUnknown(InfoKind.EMAIL);
            b.ask(
                    InfoKind.NAME_ZIP,
                    "My name is "
                            + user.name().firstName()
                            + " "
                            + user.name().lastName()
                            + " and my zip code is "
                            + user.address().zip()
                            + ".");
            b.call(
                    ToolCall.of(
                            "find_user_id_by_name_zip",
                            "first_name",
                            user.name().firstName(),
                            "last_name",
                            user.name().lastName(),
                            "zip",
                            user.address().zip()));
        }
        b.call(ToolCall.of("get_user_details", "user_id", user.userId()));
        return b;
    }

    /** A task that authenticates the order's user and then looks the order up. */
    private static TaskBuilder orderLookedUp(
            final String id,
            final String kind,
            final RetailDb db,
            final SplittableRandom rng,
            final Order order) {
        final TaskBuilder b = authenticated(id, kind, db, rng, order);
        b.ask(InfoKind.ORDER_ID, "The order id is " + order.orderId() + ".");
        b.call(ToolCall.of("get_order_details", "order_id", order.orderId()));
        return b;
    }

    private static String describe(final Map<String, String> options) {
        return new TreeMap<>(options)
                .entrySet().stream()
                        .map(e -> e.getKey() + ": " + e.getValue())
                        .collect(Collectors.joining(", "));
    }

    private static Map<String, Object> addressArgs(final Address a) {
        final Map<String, Object> args = new LinkedHashMap<>();
        args.put("address1", a.address1());
        args.put("address2", a.address2());
        args.put("city", a.city());
        args.put("state", a.state());
        args.put("country", a.country());
        args.put("zip", a.zip());
        return args;
    }

    private static ToolCall callWith(
            final String name, final Map<String, Object> extra, final Object... namesAndValues) {
        final List<Object> all = new ArrayList<>(List.of(namesAndValues));
        extra.forEach(
                (k, v) -> {
                    all.add(k);
                    all.add(v);
                });
        return ToolCall.of(name, all.toArray());
    }

    private static Tau2Task cancel(
            final TaskBuilder b, final SplittableRandom rng, final Order order) {
        final String reason = rng.nextBoolean() ? "no longer needed" : "ordered by mistake";
        b.ask(
                InfoKind.REASON,
                reason.equals("no longer needed")
                        ? "I no longer need it."
                        : "I ordered it by mistake.");
        final String refund = Money.format(order.total());
        b.say(
                "Please confirm (yes/no): cancel order "
                        + order.orderId()
                        + " with reason '"
                        + reason
                        + "'; $"
                        + refund
                        + " will be refunded to the original payment method.");
        b.call(ToolCall.of("cancel_pending_order", "order_id", order.orderId(), "reason", reason));
        b.say(
                "Your order "
                        + order.orderId()
                        + " is cancelled and $"
                        + refund
                        + " will be refunded to the original payment method. Is there anything"
                        + " else I can help you with?");
        b.require(refund);
        return b.build(
                "Hi, I'd like to cancel an order I placed recently.",
                "I just want to cancel my order.",
                false);
    }

    private static Tau2Task modifyAddress(
            final TaskBuilder b, final SplittableRandom rng, final Order order) {
        final Address address = Fakes.address(rng);
        b.ask(InfoKind.ADDRESS, "Please ship it to " + address.oneLine() + ".");
        b.say(
                "Please confirm (yes/no): change the shipping address of order "
                        + order.orderId()
                        + " to "
                        + address.oneLine()
                        + ".");
        b.call(
                callWith(
                        "modify_pending_order_address",
                        addressArgs(address),
                        "order_id",
                        order.orderId()));
        b.say(
                "Order "
                        + order.orderId()
                        + " will now be shipped to "
                        + address.oneLine()
                        + ". Is there anything else I can help you with?");
        return b.build(
                "Hi, I need to change the shipping address of an order I placed.",
                "I need my order shipped to a different address.",
                false);
    }

    private static Tau2Task modifyPayment(
            final TaskBuilder b, final RetailDb db, final Order order) {
        final PaymentMethod method = otherMethod(db, order).orElseThrow();
        b.ask(InfoKind.PAYMENT, "Please use " + method.describe() + " instead.");
        b.say(
                "Please confirm (yes/no): pay order "
                        + order.orderId()
                        + " with "
                        + method.id()
                        + " instead; the original payment will be refunded.");
        b.call(
                ToolCall.of(
                        "modify_pending_order_payment",
                        "order_id",
                        order.orderId(),
                        "payment_method_id",
                        method.id()));
        b.say(
                "Order "
                        + order.orderId()
                        + " is now paid with "
                        + method.id()
                        + ". Is there anything else I can help you with?");
        return b.build(
                "Hi, I'd like to change how I pay for one of my orders.",
                "I want to pay for my order with a different method.",
                false);
    }

    private static Tau2Task swapItem(
            final TaskBuilder b, final RetailDb db, final Order order, final boolean exchange) {
        final Swap swap = swappable(db, order).orElseThrow();
        b.call(ToolCall.of("get_product_details", "product_id", swap.item().productId()));
        b.ask(
                InfoKind.ITEMS,
                "I'd like to change the "
                        + swap.item().name()
                        + " ("
                        + describe(swap.item().options())
                        + ") to the one with "
                        + describe(swap.replacement().options())
                        + ".");
        final double diff = Money.cents(swap.replacement().price() - swap.item().price());
        final User user = db.users().get(order.userId());
        final String original = order.paymentHistory().get(0).paymentMethodId();
        final PaymentMethod originalMethod = user.paymentMethods().get(original);
        final PaymentMethod method =
                !originalMethod.source().equals("gift_card") || originalMethod.balance() >= diff
                        ? originalMethod
                        : user.paymentMethods().values().stream()
                                .filter(m -> !m.source().equals("gift_card"))
                                .findFirst()
                                .orElseThrow();
        b.ask(InfoKind.PAYMENT, "Please use " + method.describe() + ".");
        final String difference =
                (diff >= 0 ? "you pay $" : "you get a refund of $") + Money.format(Math.abs(diff));
        b.say(
                "Please confirm (yes/no): "
                        + (exchange ? "exchange" : "change")
                        + " item "
                        + swap.item().itemId()
                        + " of order "
                        + order.orderId()
                        + " for item "
                        + swap.replacement().itemId()
                        + "; "
                        + difference
                        + " with "
                        + method.id()
                        + ".");
        b.call(
                ToolCall.of(
                        exchange ? "exchange_delivered_order_items" : "modify_pending_order_items",
                        "order_id",
                        order.orderId(),
                        "item_ids",
                        List.of(swap.item().itemId()),
                        "new_item_ids",
                        List.of(swap.replacement().itemId()),
                        "payment_method_id",
                        method.id()));
        b.say(
                (exchange ? "Your exchange is requested" : "Your order is updated")
                        + "; "
                        + difference
                        + ". Is there anything else I can help you with?");
        b.require(Money.format(Math.abs(diff)));
        return exchange
                ? b.build(
                        "Hi, I received an order and would like to exchange an item for a"
                                + " different option.",
                        "I want to exchange an item of my delivered order.",
                        false)
                : b.build(
                        "Hi, I want to change an item in an order that hasn't shipped yet.",
                        "I want to change an item in my pending order.",
                        false);
    }

    private static Tau2Task returnItems(
            final TaskBuilder b, final SplittableRandom rng, final Order order) {
        final OrderItem item = Fakes.pick(rng, order.items());
        b.ask(
                InfoKind.ITEMS,
                "I want to return the " + item.name() + " (" + describe(item.options()) + ").");
        final String original = order.paymentHistory().get(0).paymentMethodId();
        b.ask(InfoKind.PAYMENT, "Please refund it to the original payment method.");
        final String refund = Money.format(item.price());
        b.say(
                "Please confirm (yes/no): return item "
                        + item.itemId()
                        + " of order "
                        + order.orderId()
                        + "; $"
                        + refund
                        + " will be refunded to "
                        + original
                        + ".");
        b.call(
                ToolCall.of(
                        "return_delivered_order_items",
                        "order_id",
                        order.orderId(),
                        "item_ids",
                        List.of(item.itemId()),
                        "payment_method_id",
                        original));
        b.say(
                "Your return is requested; $"
                        + refund
                        + " will be refunded once we receive the item. Is there anything else I"
                        + " can help you with?");
        b.require(refund);
        return b.build(
                "Hi, I'd like to return something from an order I received.",
                "I want to return an item.",
                false);
    }

    private static Tau2Task userAddress(
            final TaskBuilder b, final SplittableRandom rng, final Order order) {
        final Address address = Fakes.address(rng);
        b.ask(InfoKind.ADDRESS, "My new address is " + address.oneLine() + ".");
        b.say("Please confirm (yes/no): set your default address to " + address.oneLine() + ".");
        b.call(callWith("modify_user_address", addressArgs(address), "user_id", order.userId()));
        b.say(
                "Your default address is now "
                        + address.oneLine()
                        + ". Is there anything else I can help you with?");
        return b.build(
                "Hi, I moved recently and need to update the address on my account.",
                "I need to update my account's address.",
                false);
    }

    private static Tau2Task status(final TaskBuilder b, final Order order) {
        b.say(
                "Your order "
                        + order.orderId()
                        + " has the status '"
                        + order.status()
                        + "'. Is there anything else I can help you with?");
        b.require("'" + order.status() + "'");
        return b.build(
                "Hi, could you tell me the status of one of my orders?",
                "I just want to know the status of my order.",
                false);
    }

    private static Tau2Task transfer(final TaskBuilder b, final Order order) {
        b.call(
                ToolCall.of(
                        "transfer_to_human_agents",
                        "summary",
                        "User "
                                + order.userId()
                                + " received a damaged package and wants to file a claim."));
        b.say("I'm transferring you to a human agent now. Please hold on.");
        return b.build(
                "Hi, a package I received was damaged and I want to file a claim with a human"
                        + " agent.",
                "I really need a human agent to file my damage claim.",
                true);
    }
}
