package dev.rwml.env.tau2.airline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.tau2.Address;
import dev.rwml.env.tau2.Name;
import dev.rwml.env.tau2.ToolCall;
import dev.rwml.env.tau2.ToolError;
import dev.rwml.env.tau2.airline.AirlineDb.AirlinePayment;
import dev.rwml.env.tau2.airline.AirlineDb.Airport;
import dev.rwml.env.tau2.airline.AirlineDb.Flight;
import dev.rwml.env.tau2.airline.AirlineDb.FlightDate;
import dev.rwml.env.tau2.airline.AirlineDb.Passenger;
import dev.rwml.env.tau2.airline.AirlineDb.PaymentMethod;
import dev.rwml.env.tau2.airline.AirlineDb.Reservation;
import dev.rwml.env.tau2.airline.AirlineDb.ReservationFlight;
import dev.rwml.env.tau2.airline.AirlineDb.User;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AirlineToolsTest {

    private static final String USER = "sara_doe_496";
    private static final String CARD = "credit_card_1111111";
    private static final String GIFT = "gift_card_2222222";
    private static final String CERT = "certificate_3333333";
    private static final Passenger SARA = new Passenger("Sara", "Doe", "1990-01-01");
    private static final Passenger IVAN = new Passenger("Ivan", "Li", "1985-03-02");
    private static final Map<String, Object> SARA_ARG =
            Map.of("first_name", "Sara", "last_name", "Doe", "dob", "1990-01-01");
    private static final Map<String, Object> IVAN_ARG =
            Map.of("first_name", "Ivan", "last_name", "Li", "dob", "1985-03-02");

    private AirlineDb db;
    private AirlineTools tools;

    @BeforeEach
    void setUp() {
        db =
                new AirlineDb(
                        List.of(
                                new Airport("JFK", "New York"),
                                new Airport("SFO", "San Francisco")),
                        new TreeMap<>(),
                        new TreeMap<>(),
                        new TreeMap<>());
        db.users()
                .put(
                        USER,
                        new User(
                                USER,
                                new Name("Sara", "Doe"),
                                new Address("1 Oak Street", "", "Austin", "TX", "USA", "78701"),
                                "sara@example.com",
                                "1990-01-01",
                                "regular",
                                Map.of(
                                        CARD,
                                        new PaymentMethod(
                                                "credit_card", CARD, "visa", "1234", null),
                                        GIFT,
                                        new PaymentMethod("gift_card", GIFT, null, null, 100),
                                        CERT,
                                        new PaymentMethod("certificate", CERT, null, null, 200)),
                                List.of(IVAN),
                                List.of()));
        flight(
                "HAT001",
                "SFO",
                "JFK",
                "08:00:00",
                "12:00:00",
                Map.of("2024-05-14", date("landed"), "2024-05-20", date("available")));
        flight(
                "HAT002",
                "JFK",
                "SFO",
                "14:00:00",
                "18:00:00",
                Map.of("2024-05-22", date("available")));
        flight(
                "HAT003",
                "SFO",
                "JFK",
                "16:00:00",
                "20:00:00",
                Map.of("2024-05-20", date("cancelled"), "2024-05-21", date("available")));
        reservation("AAAAA1", "economy", "2024-05-01T10:00:00", "no", "HAT001", "2024-05-20");
        reservation("AAAAA2", "business", "2024-05-01T10:00:00", "no", "HAT001", "2024-05-20");
        reservation("AAAAA3", "basic_economy", "2024-05-01T10:00:00", "no", "HAT001", "2024-05-20");
        reservation("AAAAA4", "economy", "2024-05-14T20:00:00", "yes", "HAT001", "2024-05-14");
        reservation("AAAAA5", "economy", "2024-05-14T20:00:00", "no", "HAT001", "2024-05-20");
        tools = new AirlineTools(db);
    }

    private static FlightDate date(final String status) {
        return new FlightDate(
                status,
                Map.of("basic_economy", 3, "economy", 5, "business", 1),
                Map.of("basic_economy", 60, "economy", 120, "business", 300));
    }

    private void flight(
            final String number,
            final String from,
            final String to,
            final String dep,
            final String arr,
            final Map<String, FlightDate> dates) {
        db.flights().put(number, new Flight(number, from, to, dep, arr, dates));
    }

    private void reservation(
            final String id,
            final String cabin,
            final String created,
            final String insurance,
            final String flight,
            final String date) {
        final int price = db.flights().get(flight).dates().get(date).prices().get(cabin);
        db.reservations()
                .put(
                        id,
                        new Reservation(
                                id,
                                USER,
                                "SFO",
                                "JFK",
                                "one_way",
                                cabin,
                                List.of(new ReservationFlight(flight, date, price, "SFO", "JFK")),
                                List.of(SARA),
                                List.of(new AirlinePayment(CARD, price)),
                                created,
                                0,
                                0,
                                insurance,
                                null));
    }

    private String call(final String name, final Object... args) {
        try {
            return tools.call(ToolCall.of(name, args));
        } catch (ToolError e) {
            return "Error: " + e.getMessage();
        }
    }

    private String refused(final String name, final Object... args) {
        final AirlineDb before = db.copy();
        final String result = call(name, args);
        assertThat(result).startsWith("Error: ");
        assertThat(db).isEqualTo(before);
        return result;
    }

    private Object[] booking(
            final String flight,
            final String cabin,
            final int bags,
            final int nonfree,
            final String insurance,
            final List<Map<String, Object>> payments) {
        return new Object[] {
            "user_id",
            USER,
            "origin",
            "SFO",
            "destination",
            "JFK",
            "flight_type",
            "one_way",
            "cabin",
            cabin,
            "flights",
            flightOn(flight, "2024-05-20"),
            "passengers",
            List.of(SARA_ARG, IVAN_ARG),
            "payment_methods",
            payments,
            "total_baggages",
            bags,
            "nonfree_baggages",
            nonfree,
            "insurance",
            insurance
        };
    }

    /** Arguments of a booking with no checked bags and no insurance. */
    @SafeVarargs
    private Object[] bookingWithoutExtras(
            final String flight, final String cabin, final Map<String, Object>... payments) {
        return booking(flight, cabin, 0, 0, "no", List.of(payments));
    }

    /** The flights argument of a trip on one flight and date. */
    private static List<Map<String, Object>> flightOn(
            final String flightNumber, final String date) {
        return List.of(Map.of("flight_number", flightNumber, "date", date));
    }

    /** Arguments of the tool that moves a reservation to other flights or another cabin. */
    private String refusedFlightChange(
            final String reservationId,
            final String cabin,
            final List<Map<String, Object>> flights,
            final String paymentId) {
        return refused(
                "update_reservation_flights",
                flightChange(reservationId, cabin, flights, paymentId));
    }

    private static Object[] flightChange(
            final String reservationId,
            final String cabin,
            final List<Map<String, Object>> flights,
            final String paymentId) {
        return new Object[] {
            "reservation_id",
            reservationId,
            "cabin",
            cabin,
            "flights",
            flights,
            "payment_id",
            paymentId
        };
    }

    /** Arguments of the tool that sets a reservation's bag counts. */
    private static Object[] bagChange(
            final String reservationId,
            final int total,
            final int nonfree,
            final String paymentId) {
        return new Object[] {
            "reservation_id",
            reservationId,
            "total_baggages",
            total,
            "nonfree_baggages",
            nonfree,
            "payment_id",
            paymentId
        };
    }

    /** One payment of a booking: which stored method pays how much. */
    private static Map<String, Object> payment(final String paymentId, final int amount) {
        return Map.of("payment_id", paymentId, "amount", amount);
    }

    @Test
    void shouldBookWhenPaymentsAddUpToSeatsInsuranceAndNonfreeBags() {
        // 2 x 120 economy + 2 x 30 insurance + 1 x 50 (regular economy: 1 free bag each, 3 bags)
        final String result =
                call(
                        "book_reservation",
                        booking(
                                "HAT001",
                                "economy",
                                3,
                                1,
                                "yes",
                                List.of(payment(GIFT, 100), payment(CARD, 250))));
        assertThat(result)
                .contains("\"insurance\":\"yes\"")
                .contains("\"created_at\":\"2024-05-15T15:00:00\"");
        final User user = db.users().get(USER);
        assertThat(user.reservations()).hasSize(1);
        assertThat(user.paymentMethods().get(GIFT).amount()).isZero();
        assertThat(
                        db.flights()
                                .get("HAT001")
                                .dates()
                                .get("2024-05-20")
                                .availableSeats()
                                .get("economy"))
                .isEqualTo(3);
    }

    @Test
    void shouldRefuseBookingWhenPaymentsDoNotAddUp() {
        assertThat(
                        refused(
                                "book_reservation",
                                bookingWithoutExtras("HAT001", "economy", payment(CARD, 200))))
                .isEqualTo(
                        "Error: Payment amount does not add up, total price is 240, but paid 200");
    }

    @Test
    void shouldRefuseBookingWhenFlightIsNotAvailableOrFull() {
        assertThat(
                        refused(
                                "book_reservation",
                                bookingWithoutExtras("HAT003", "economy", payment(CARD, 240))))
                .contains("not available for booking (status: cancelled)");
        assertThat(
                        refused(
                                "book_reservation",
                                bookingWithoutExtras("HAT001", "business", payment(CARD, 600))))
                .contains("Not enough seats");
    }

    @Test
    void shouldRefuseBookingWhenNonfreeBagsDoNotFollowMembershipAndCabin() {
        assertThat(
                        refused(
                                "book_reservation",
                                booking(
                                        "HAT001",
                                        "economy",
                                        3,
                                        0,
                                        "no",
                                        List.of(payment(CARD, 240)))))
                .contains("nonfree_baggages should be 1");
    }

    @Test
    void shouldRefuseBookingWithUnknownOrUnderfundedPaymentMethod() {
        assertThat(
                        refused(
                                "book_reservation",
                                bookingWithoutExtras(
                                        "HAT001", "economy", payment("credit_card_9", 240))))
                .isEqualTo("Error: Payment method credit_card_9 not found");
        assertThat(
                        refused(
                                "book_reservation",
                                bookingWithoutExtras(
                                        "HAT001",
                                        "economy",
                                        payment(GIFT, 140),
                                        payment(CARD, 100))))
                .isEqualTo("Error: Not enough balance in payment method " + GIFT);
    }

    @Test
    void shouldCancelWithRefundsWhenBusinessInsuredOrRecent() {
        call("cancel_reservation", "reservation_id", "AAAAA2");
        assertThat(db.reservations().get("AAAAA2").status()).isEqualTo("cancelled");
        assertThat(db.reservations().get("AAAAA2").paid()).isZero();
        call("cancel_reservation", "reservation_id", "AAAAA5");
        assertThat(db.reservations().get("AAAAA5").status()).isEqualTo("cancelled");
        assertThat(refused("cancel_reservation", "reservation_id", "AAAAA2"))
                .contains("is cancelled");
    }

    @Test
    void shouldRefuseCancellationWhenNoConditionHoldsOrFlightDeparted() {
        assertThat(refused("cancel_reservation", "reservation_id", "AAAAA1"))
                .contains("cannot be cancelled");
        assertThat(refused("cancel_reservation", "reservation_id", "AAAAA4"))
                .contains("already departed");
        assertThat(refused("cancel_reservation", "reservation_id", "ZZZZZZ")).contains("not found");
    }

    @Test
    void shouldRefuseFlightChangesOfBasicEconomyButAllowItsCabinUpgrade() {
        final List<Map<String, Object>> other = flightOn("HAT003", "2024-05-21");
        assertThat(refusedFlightChange("AAAAA3", "basic_economy", other, CARD))
                .isEqualTo("Error: Basic economy flights cannot be modified");
        final List<Map<String, Object>> same = flightOn("HAT001", "2024-05-20");
        call("update_reservation_flights", flightChange("AAAAA3", "economy", same, CARD));
        final Reservation r = db.reservations().get("AAAAA3");
        assertThat(r.cabin()).isEqualTo("economy");
        assertThat(r.paymentHistory()).contains(new AirlinePayment(CARD, 60));
    }

    @Test
    void shouldChangeFlightsAndChargeTheDifferenceButNeverWithCertificate() {
        final List<Map<String, Object>> other = flightOn("HAT003", "2024-05-21");
        assertThat(refusedFlightChange("AAAAA1", "business", other, CERT))
                .contains("Certificates cannot be used");
        final List<Map<String, Object>> wrongWay = flightOn("HAT002", "2024-05-22");
        assertThat(refusedFlightChange("AAAAA1", "economy", wrongWay, CARD))
                .contains("must go from SFO to JFK");
        call("update_reservation_flights", flightChange("AAAAA1", "economy", other, CARD));
        assertThat(db.reservations().get("AAAAA1").flights().get(0).flightNumber())
                .isEqualTo("HAT003");
    }

    @Test
    void shouldRefuseCabinChangeAfterDeparture() {
        final List<Map<String, Object>> same = flightOn("HAT001", "2024-05-14");
        assertThat(refusedFlightChange("AAAAA4", "business", same, CARD)).contains("not available");
    }

    @Test
    void shouldAddBagsWithChargeButNeverRemoveThem() {
        call("update_reservation_baggages", bagChange("AAAAA1", 3, 2, CARD));
        final Reservation r = db.reservations().get("AAAAA1");
        assertThat(r.totalBaggages()).isEqualTo(3);
        assertThat(r.paymentHistory()).contains(new AirlinePayment(CARD, 100));
        assertThat(refused("update_reservation_baggages", bagChange("AAAAA1", 1, 0, CARD)))
                .contains("can only be added");
        assertThat(refused("update_reservation_baggages", bagChange("AAAAA1", 4, 2, CARD)))
                .contains("nonfree_baggages should be 3");
    }

    @Test
    void shouldReplacePassengersOnlyKeepingTheirNumber() {
        call(
                "update_reservation_passengers",
                "reservation_id",
                "AAAAA1",
                "passengers",
                List.of(IVAN_ARG));
        assertThat(db.reservations().get("AAAAA1").passengers()).containsExactly(IVAN);
        assertThat(
                        refused(
                                "update_reservation_passengers",
                                "reservation_id",
                                "AAAAA1",
                                "passengers",
                                List.of(IVAN_ARG, SARA_ARG)))
                .contains("number of passengers cannot change");
    }

    @Test
    void shouldSendCertificateAsNewPaymentMethod() {
        final String result = call("send_certificate", "user_id", USER, "amount", 100);
        assertThat(result)
                .startsWith("Certificate certificate_")
                .endsWith(" added to user " + USER + " with amount 100.");
        assertThat(db.users().get(USER).paymentMethods()).hasSize(4);
        assertThat(refused("send_certificate", "user_id", "x_y_1", "amount", 100))
                .contains("not found");
    }

    @Test
    void shouldSearchOnlyAvailableFlightsAndReportStatus() {
        assertThat(
                        call(
                                "search_direct_flight",
                                "origin",
                                "SFO",
                                "destination",
                                "JFK",
                                "date",
                                "2024-05-20"))
                .contains("HAT001")
                .doesNotContain("HAT003");
        assertThat(
                        call(
                                "search_onestop_flight",
                                "origin",
                                "SFO",
                                "destination",
                                "SFO",
                                "date",
                                "2024-05-20"))
                .isEqualTo("[]");
        assertThat(call("get_flight_status", "flight_number", "HAT003", "date", "2024-05-20"))
                .isEqualTo("cancelled");
        assertThat(call("get_flight_status", "flight_number", "HAT003", "date", "May 20"))
                .startsWith("Error: date must be");
        assertThat(call("list_all_airports"))
                .isEqualTo(
                        "[{\"city\":\"New York\",\"iata\":\"JFK\"},{\"city\":\"San Francisco\",\"iata\":\"SFO\"}]");
    }
}
