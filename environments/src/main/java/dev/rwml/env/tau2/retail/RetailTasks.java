package dev.rwml.env.tau2.retail;

import dev.rwml.env.tau2.Address;
import dev.rwml.env.tau2.Fakes;
import dev.rwml.env.tau2.InfoKind;
import dev.rwml.env.tau2.Money;
import dev.rwml.env.tau2.TaskBuilder;
import dev.rwml.env.tau2.TaskKinds;
import dev.rwml.env.tau2.Tau2Task;
import dev.rwml.env.tau2.ToolCall;
import dev.rwml.env.tau2.retail.RetailDb.Order;
import dev.rwml.env.tau2.retail.RetailDb.OrderItem;
import dev.rwml.env.tau2.retail.RetailDb.Payment;
import dev.rwml.env.tau2.retail.RetailDb.PaymentMethod;
import dev.rwml.env.tau2.retail.RetailDb.User;
import dev.rwml.env.tau2.retail.RetailDb.Variant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import java.util.stream.Collectors;

/** Generates retail tasks, each with its gold plan, from a generated database. */
public final class RetailTasks {

    private static final String ANYTHING_ELSE = "Is there anything else I can help you with?";

    /** The retail task kinds, in the order the generator tries them, each with its generator. */
    public enum TaskKind {
        CANCEL_PENDING_ORDER(
                aboutOrder(
                        (db, o) -> o.status().equals("pending"),
                        (b, db, rng, o) -> cancel(b, rng, o))),
        MODIFY_PENDING_ORDER_ADDRESS(
                aboutOrder(
                        (db, o) -> o.status().startsWith("pending"),
                        (b, db, rng, o) -> modifyAddress(b, rng, o))),
        MODIFY_PENDING_ORDER_PAYMENT(
                aboutOrder(
                        RetailTasks::payableOtherwise, (b, db, rng, o) -> modifyPayment(b, db, o))),
        MODIFY_PENDING_ORDER_ITEMS(
                aboutOrder(
                        (db, o) -> swappableIn(db, o, "pending"),
                        (b, db, rng, o) -> swapItem(b, db, o, false))),
        RETURN_DELIVERED_ORDER_ITEMS(
                aboutOrder(
                        (db, o) -> o.status().equals("delivered"),
                        (b, db, rng, o) -> returnItems(b, rng, o))),
        EXCHANGE_DELIVERED_ORDER_ITEMS(
                aboutOrder(
                        (db, o) -> swappableIn(db, o, "delivered"),
                        (b, db, rng, o) -> swapItem(b, db, o, true))),
        MODIFY_USER_ADDRESS(aboutUser((b, db, rng, o) -> userAddress(b, rng, o))),
        ORDER_STATUS(aboutOrder((db, o) -> true, (b, db, rng, o) -> status(b, o))),
        TRANSFER_TO_HUMAN_AGENTS(aboutUser((b, db, rng, o) -> transfer(b, o)));

        private final TaskKinds.Generator<RetailDb> generator;

        TaskKind(final TaskKinds.Generator<RetailDb> generator) {
            this.generator = generator;
        }

        /** The kind as tasks record it, e.g. {@code cancel_pending_order}. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** A task of this kind, or empty when no user or order of the database fits it. */
        public Optional<Tau2Task> task(
                final String taskId, final RetailDb db, final SplittableRandom rng) {
            return generator.task(taskId, id(), db, rng);
        }
    }

    private RetailTasks() {}

    /** A task of a kind that this database supports, chosen at random. */
    public static Tau2Task task(final String id, final RetailDb db, final SplittableRandom rng) {
        return TaskKinds.firstFitting(
                id, List.of(TaskKind.values()), rng, kind -> kind.task(id, db, rng));
    }

    /** Writes the rest of a task's plan once its user (and maybe order) is known. */
    @FunctionalInterface
    private interface Plan {
        Tau2Task finish(TaskBuilder b, RetailDb db, SplittableRandom rng, Order order);
    }

    /** Tasks about an order that fits, which the plan looks up after authenticating its user. */
    private static TaskKinds.Generator<RetailDb> aboutOrder(
            final BiPredicate<RetailDb, Order> fits, final Plan plan) {
        return (id, kind, db, rng) ->
                Fakes.pickFitting(rng, db.orders().values(), o -> fits.test(db, o))
                        .map(o -> plan.finish(orderLookedUp(id, kind, db, rng, o), db, rng, o));
    }

    /** Tasks about the user of any order, whom the plan authenticates. */
    private static TaskKinds.Generator<RetailDb> aboutUser(final Plan plan) {
        return (id, kind, db, rng) -> {
            final Order o = Fakes.pick(rng, List.copyOf(db.orders().values()));
            return Optional.of(plan.finish(authenticated(id, kind, db, rng, o), db, rng, o));
        };
    }

    private static boolean payableOtherwise(final RetailDb db, final Order o) {
        return o.status().startsWith("pending")
                && o.paymentHistory().size() == 1
                && otherMethod(db, o).isPresent();
    }

    private static boolean swappableIn(final RetailDb db, final Order o, final String status) {
        return o.status().equals(status) && swappable(db, o).isPresent();
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
                    "My name is %s %s and my zip code is %s."
                            .formatted(
                                    user.name().firstName(),
                                    user.name().lastName(),
                                    user.address().zip()));
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
                """
                Please confirm (yes/no): cancel order %s with reason '%s'; $%s will be refunded \
                to the original payment method."""
                        .formatted(order.orderId(), reason, refund));
        b.call(ToolCall.of("cancel_pending_order", "order_id", order.orderId(), "reason", reason));
        b.say(
                """
                Your order %s is cancelled and $%s will be refunded to the original payment \
                method. %s"""
                        .formatted(order.orderId(), refund, ANYTHING_ELSE));
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
                "Please confirm (yes/no): change the shipping address of order %s to %s."
                        .formatted(order.orderId(), address.oneLine()));
        b.call(
                callWith(
                        "modify_pending_order_address",
                        addressArgs(address),
                        "order_id",
                        order.orderId()));
        b.say(
                "Order %s will now be shipped to %s. %s"
                        .formatted(order.orderId(), address.oneLine(), ANYTHING_ELSE));
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
                """
                Please confirm (yes/no): pay order %s with %s instead; the original payment will \
                be refunded."""
                        .formatted(order.orderId(), method.id()));
        b.call(
                ToolCall.of(
                        "modify_pending_order_payment",
                        "order_id",
                        order.orderId(),
                        "payment_method_id",
                        method.id()));
        b.say(
                "Order %s is now paid with %s. %s"
                        .formatted(order.orderId(), method.id(), ANYTHING_ELSE));
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
                "I'd like to change the %s (%s) to the one with %s."
                        .formatted(
                                swap.item().name(),
                                describe(swap.item().options()),
                                describe(swap.replacement().options())));
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
                "Please confirm (yes/no): %s item %s of order %s for item %s; %s with %s."
                        .formatted(
                                exchange ? "exchange" : "change",
                                swap.item().itemId(),
                                order.orderId(),
                                swap.replacement().itemId(),
                                difference,
                                method.id()));
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
                "%s; %s. %s"
                        .formatted(
                                exchange ? "Your exchange is requested" : "Your order is updated",
                                difference,
                                ANYTHING_ELSE));
        b.require(Money.format(Math.abs(diff)));
        return exchange
                ? b.build(
                        """
                        Hi, I received an order and would like to exchange an item for a \
                        different option.""",
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
                "I want to return the %s (%s).".formatted(item.name(), describe(item.options())));
        final String original = order.paymentHistory().get(0).paymentMethodId();
        b.ask(InfoKind.PAYMENT, "Please refund it to the original payment method.");
        final String refund = Money.format(item.price());
        b.say(
                "Please confirm (yes/no): return item %s of order %s; $%s will be refunded to %s."
                        .formatted(item.itemId(), order.orderId(), refund, original));
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
                "Your return is requested; $%s will be refunded once we receive the item. %s"
                        .formatted(refund, ANYTHING_ELSE));
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
        b.say("Your default address is now %s. %s".formatted(address.oneLine(), ANYTHING_ELSE));
        return b.build(
                "Hi, I moved recently and need to update the address on my account.",
                "I need to update my account's address.",
                false);
    }

    private static Tau2Task status(final TaskBuilder b, final Order order) {
        b.say(
                "Your order %s has the status '%s'. %s"
                        .formatted(order.orderId(), order.status(), ANYTHING_ELSE));
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
                        "User %s received a damaged package and wants to file a claim."
                                .formatted(order.userId())));
        b.say("I'm transferring you to a human agent now. Please hold on.");
        return b.build(
                """
                Hi, a package I received was damaged and I want to file a claim with a human \
                agent.""",
                "I really need a human agent to file my damage claim.",
                true);
    }
}
