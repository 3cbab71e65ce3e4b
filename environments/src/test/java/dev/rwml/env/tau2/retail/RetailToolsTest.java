package dev.rwml.env.tau2.retail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.env.tau2.Address;
import dev.rwml.env.tau2.Name;
import dev.rwml.env.tau2.ToolCall;
import dev.rwml.env.tau2.ToolError;
import dev.rwml.env.tau2.retail.RetailDb.Order;
import dev.rwml.env.tau2.retail.RetailDb.OrderItem;
import dev.rwml.env.tau2.retail.RetailDb.Payment;
import dev.rwml.env.tau2.retail.RetailDb.PaymentMethod;
import dev.rwml.env.tau2.retail.RetailDb.Product;
import dev.rwml.env.tau2.retail.RetailDb.User;
import dev.rwml.env.tau2.retail.RetailDb.Variant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RetailToolsTest {

    private static final Address HOME =
            new Address("1 Oak Street", "", "Austin", "TX", "USA", "78701");
    private static final String CARD = "credit_card_1111111";
    private static final String PAYPAL = "paypal_2222222";
    private static final String GIFT = "gift_card_3333333";
    private static final String RED_M = "1000000001";
    private static final String BLUE_L = "1000000002";
    private static final String BLACK_S = "1000000003";
    private static final String MUG = "2000000001";

    private RetailDb db;
    private RetailTools tools;

    @BeforeEach
    void setUp() {
        db = new RetailDb(new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
        db.products()
                .put(
                        "9000000001",
                        new Product(
                                "T-Shirt",
                                "9000000001",
                                Map.of(
                                        RED_M,
                                        new Variant(
                                                RED_M,
                                                Map.of("color", "red", "size", "M"),
                                                true,
                                                20.0),
                                        BLUE_L,
                                        new Variant(
                                                BLUE_L,
                                                Map.of("color", "blue", "size", "L"),
                                                true,
                                                25.5),
                                        BLACK_S,
                                        new Variant(
                                                BLACK_S,
                                                Map.of("color", "black", "size", "S"),
                                                false,
                                                18.0))));
        db.products()
                .put(
                        "9000000002",
                        new Product(
                                "Mug",
                                "9000000002",
                                Map.of(
                                        MUG,
                                        new Variant(MUG, Map.of("color", "white"), true, 10.0))));
        db.users()
                .put(
                        "sara_doe_496",
                        new User(
                                "sara_doe_496",
                                new Name("Sara", "Doe"),
                                HOME,
                                "sara.doe@example.com",
                                Map.of(
                                        CARD,
                                                new PaymentMethod(
                                                        "credit_card", CARD, "visa", "1234", null),
                                        PAYPAL,
                                                new PaymentMethod(
                                                        "paypal", PAYPAL, null, null, null),
                                        GIFT,
                                                new PaymentMethod(
                                                        "gift_card", GIFT, null, null, 5.0)),
                                List.of("#W0000001", "#W0000002")));
        order("#W0000001", "pending");
        order("#W0000002", "delivered");
        order("#W0000003", "processed");
        tools = new RetailTools(db);
    }

    private void order(final String id, final String status) {
        db.orders()
                .put(
                        id,
                        Order.placed(
                                id,
                                "sara_doe_496",
                                HOME,
                                List.of(
                                        new OrderItem(
                                                "T-Shirt",
                                                "9000000001",
                                                RED_M,
                                                20.0,
                                                Map.of("color", "red", "size", "M")),
                                        new OrderItem(
                                                "Mug",
                                                "9000000002",
                                                MUG,
                                                10.0,
                                                Map.of("color", "white"))),
                                List.of(),
                                status,
                                List.of(new Payment("payment", 30.0, CARD))));
    }

    private static final Object[] DENVER = {
        "city", "Denver", "state", "CO", "country", "USA", "zip", "80201"
    };

    private String call(final String name, final Object... args) {
        try {
            return tools.call(ToolCall.of(name, args));
        } catch (ToolError e) {
            return "Error: " + e.getMessage();
        }
    }

    private String refusedWithoutChange(final String name, final Object... args) {
        final RetailDb before = db.copy();
        final String result = call(name, args);
        assertThat(result).startsWith("Error: ");
        assertThat(db).isEqualTo(before);
        return result;
    }

    @Test
    void shouldFindUserByEmailOrNameAndZipWhenTheyMatch() {
        assertThat(call("find_user_id_by_email", "email", "sara.doe@example.com"))
                .isEqualTo("sara_doe_496");
        assertThat(
                        call(
                                "find_user_id_by_name_zip",
                                "first_name",
                                "sara",
                                "last_name",
                                "Doe",
                                "zip",
                                "78701"))
                .isEqualTo("sara_doe_496");
        assertThat(call("find_user_id_by_email", "email", "nobody@example.com"))
                .isEqualTo("Error: User not found");
        assertThat(
                        call(
                                "find_user_id_by_name_zip",
                                "first_name",
                                "Sara",
                                "last_name",
                                "Doe",
                                "zip",
                                "00000"))
                .isEqualTo("Error: User not found");
    }

    @Test
    void shouldReturnSortedJsonOfOrdersAndProductTypes() {
        assertThat(call("list_all_product_types"))
                .isEqualTo("{\"Mug\":\"9000000002\",\"T-Shirt\":\"9000000001\"}");
        assertThat(call("get_order_details", "order_id", "#W0000001"))
                .startsWith("{\"address\":{\"address1\":\"1 Oak Street\"")
                .contains("\"status\":\"pending\"");
        assertThat(call("get_order_details", "order_id", "#W9999999"))
                .isEqualTo("Error: Order not found");
        assertThat(call("get_product_details", "product_id", "1"))
                .isEqualTo("Error: Product not found");
        assertThat(call("get_user_details", "user_id", "x_y_1")).isEqualTo("Error: User not found");
    }

    @Test
    void shouldCancelPendingOrderAndRecordTheRefund() {
        call("cancel_pending_order", "order_id", "#W0000001", "reason", "ordered by mistake");
        final Order order = db.orders().get("#W0000001");
        assertThat(order.status()).isEqualTo("cancelled");
        assertThat(order.cancelReason()).isEqualTo("ordered by mistake");
        assertThat(order.paymentHistory()).contains(new Payment("refund", 30.0, CARD));
    }

    @Test
    void shouldRefuseToCancelWhenOrderIsNotPending() {
        assertThat(
                        refusedWithoutChange(
                                "cancel_pending_order",
                                "order_id",
                                "#W0000002",
                                "reason",
                                "no longer needed"))
                .isEqualTo("Error: Non-pending order cannot be cancelled");
    }

    @Test
    void shouldRefuseToCancelWhenReasonIsNotOneOfTheTwo() {
        assertThat(
                        refusedWithoutChange(
                                "cancel_pending_order",
                                "order_id",
                                "#W0000001",
                                "reason",
                                "too expensive"))
                .contains("Invalid reason");
    }

    @Test
    void shouldModifyAddressOnlyOfPendingOrders() {
        final Object[] address =
                concat(new Object[] {"address1", "9 Elm Street", "address2", ""}, DENVER);
        final Object[] pending = concat(new Object[] {"order_id", "#W0000001"}, address);
        call("modify_pending_order_address", pending);
        assertThat(db.orders().get("#W0000001").address().city()).isEqualTo("Denver");
        assertThat(
                        refusedWithoutChange(
                                "modify_pending_order_address",
                                concat(new Object[] {"order_id", "#W0000003"}, address)))
                .isEqualTo("Error: Non-pending order cannot be modified");
    }

    @Test
    void shouldModifyUserAddress() {
        call(
                "modify_user_address",
                concat(
                        new Object[] {"user_id", "sara_doe_496", "address1", "9 Elm Street"},
                        DENVER));
        assertThat(db.users().get("sara_doe_496").address().zip()).isEqualTo("80201");
    }

    @Test
    void shouldSwitchPaymentAndRefundTheOldMethod() {
        call("modify_pending_order_payment", paymentSwitch("#W0000001", PAYPAL));
        assertThat(db.orders().get("#W0000001").paymentHistory())
                .containsExactly(
                        new Payment("payment", 30.0, CARD),
                        new Payment("payment", 30.0, PAYPAL),
                        new Payment("refund", 30.0, CARD));
    }

    @Test
    void shouldRefusePaymentChangeToSameForeignOrUnderfundedMethod() {
        assertThat(
                        refusedWithoutChange(
                                "modify_pending_order_payment", paymentSwitch("#W0000001", CARD)))
                .contains("should be different");
        assertThat(
                        refusedWithoutChange(
                                "modify_pending_order_payment",
                                paymentSwitch("#W0000001", "paypal_9")))
                .isEqualTo("Error: Payment method not found");
        assertThat(
                        refusedWithoutChange(
                                "modify_pending_order_payment", paymentSwitch("#W0000001", GIFT)))
                .contains("Insufficient gift card balance");
    }

    @Test
    void shouldModifyItemsOnceAndChargeThePriceDifference() {
        call(
                "modify_pending_order_items",
                itemSwap("#W0000001", List.of(RED_M), List.of(BLUE_L), CARD));
        final Order order = db.orders().get("#W0000001");
        assertThat(order.status()).isEqualTo("pending (item modified)");
        assertThat(order.items().get(0).itemId()).isEqualTo(BLUE_L);
        assertThat(order.paymentHistory()).contains(new Payment("payment", 5.5, CARD));
        assertThat(
                        refusedWithoutChange(
                                "modify_pending_order_items",
                                itemSwap("#W0000001", List.of(BLUE_L), List.of(RED_M), CARD)))
                .isEqualTo("Error: Non-pending order cannot be modified");
    }

    @Test
    void shouldRefuseItemChangesToUnavailableForeignOrMismatchedItems() {
        assertThat(
                        refusedWithoutChange(
                                "modify_pending_order_items",
                                itemSwap("#W0000001", List.of(RED_M), List.of(BLACK_S), CARD)))
                .contains("not available");
        assertThat(
                        refusedWithoutChange(
                                "modify_pending_order_items",
                                itemSwap("#W0000001", List.of(RED_M), List.of(MUG), CARD)))
                .contains("not found");
        assertThat(
                        refusedWithoutChange(
                                "modify_pending_order_items",
                                itemSwap("#W0000001", List.of(RED_M, MUG), List.of(BLUE_L), CARD)))
                .contains("should match");
        assertThat(
                        refusedWithoutChange(
                                "modify_pending_order_items",
                                itemSwap("#W0000001", List.of(BLUE_L), List.of(RED_M), CARD)))
                .contains(BLUE_L + " not found");
        assertThat(
                        refusedWithoutChange(
                                "modify_pending_order_items",
                                itemSwap("#W0000001", List.of(RED_M), List.of(BLUE_L), GIFT)))
                .contains("Insufficient gift card balance");
    }

    @Test
    void shouldExchangeOnlyDeliveredOrders() {
        call(
                "exchange_delivered_order_items",
                itemSwap("#W0000002", List.of(RED_M), List.of(BLUE_L), CARD));
        final Order order = db.orders().get("#W0000002");
        assertThat(order.status()).isEqualTo("exchange requested");
        assertThat(order.exchange().exchangePriceDifference()).isEqualTo(5.5);
        assertThat(
                        refusedWithoutChange(
                                "exchange_delivered_order_items",
                                itemSwap("#W0000001", List.of(RED_M), List.of(BLUE_L), CARD)))
                .isEqualTo("Error: Non-delivered order cannot be exchanged");
    }

    @Test
    void shouldReturnDeliveredItemsToOriginalMethodOrGiftCardOnly() {
        assertThat(
                        refusedWithoutChange(
                                "return_delivered_order_items",
                                itemReturn("#W0000002", List.of(MUG), PAYPAL)))
                .contains("original payment method or a gift card");
        assertThat(
                        refusedWithoutChange(
                                "return_delivered_order_items",
                                itemReturn("#W0000001", List.of(MUG), CARD)))
                .isEqualTo("Error: Non-delivered order cannot be returned");
        assertThat(
                        refusedWithoutChange(
                                "return_delivered_order_items",
                                itemReturn("#W0000002", List.of(BLUE_L), CARD)))
                .contains("not found");
        call("return_delivered_order_items", itemReturn("#W0000002", List.of(MUG), GIFT));
        assertThat(db.orders().get("#W0000002").status()).isEqualTo("return requested");
        assertThat(db.orders().get("#W0000002").returnItems()).containsExactly(MUG);
    }

    @Test
    void shouldCalculateArithmeticAndRejectAnythingElse() {
        assertThat(call("calculate", "expression", "(20 + 5.5) * 2 / 3")).isEqualTo("17.0");
        assertThat(call("calculate", "expression", "import os"))
                .startsWith("Error: invalid characters");
        assertThat(call("calculate", "expression", "1 / 0")).isEqualTo("Error: division by zero");
        assertThat(call("transfer_to_human_agents", "summary", "help"))
                .isEqualTo("Transfer successful");
    }

    @Test
    void shouldFlagMissingArgumentsAsInvalidCalls() {
        assertThatThrownBy(() -> tools.call(ToolCall.of("get_order_details")))
                .isInstanceOfSatisfying(ToolError.class, e -> assertThat(e.invalidCall()).isTrue())
                .hasMessage("missing argument 'order_id'");
    }

    /** Arguments of the tools that swap an order's items for others, paid by one method. */
    private static Object[] itemSwap(
            final String orderId,
            final List<String> itemIds,
            final List<String> newItemIds,
            final String paymentMethodId) {
        return new Object[] {
            "order_id",
            orderId,
            "item_ids",
            itemIds,
            "new_item_ids",
            newItemIds,
            "payment_method_id",
            paymentMethodId
        };
    }

    /** Arguments of the tool that returns an order's items, refunded to one method. */
    private static Object[] itemReturn(
            final String orderId, final List<String> itemIds, final String paymentMethodId) {
        return new Object[] {
            "order_id", orderId, "item_ids", itemIds, "payment_method_id", paymentMethodId
        };
    }

    /** Arguments of the tool that moves a pending order's payment to another method. */
    private static Object[] paymentSwitch(final String orderId, final String paymentMethodId) {
        return new Object[] {"order_id", orderId, "payment_method_id", paymentMethodId};
    }

    private static Object[] concat(final Object[] a, final Object[] b) {
        final Object[] out = new Object[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
