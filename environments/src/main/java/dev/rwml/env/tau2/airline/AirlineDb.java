package dev.rwml.env.tau2.airline;

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
 * The airline database: airports, users, flights and reservations keyed by id. Mutable maps of
 * immutable records, so a copy is cheap and equality is equality of the data.
 */
public record AirlineDb(
        List<Airport> airports,
        SortedMap<String, User> users,
        SortedMap<String, Flight> flights,
        SortedMap<String, Reservation> reservations)
        implements DomainDb<AirlineDb> {

    /** The cabins, cheapest first. */
    public static final List<String> CABINS = List.of("basic_economy", "economy", "business");

    /** The desk's current time: reservations made after one day before it may be cancelled. */
    public static final String NOW = "2024-05-15T15:00:00";

    @Override
    public AirlineDb copy() {
        return new AirlineDb(
                airports,
                new TreeMap<>(users),
                new TreeMap<>(flights),
                new TreeMap<>(reservations));
    }

    /** An airport. */
    public record Airport(String iata, String city) {}

    /** A stored payment method: {@code credit_card}, {@code gift_card} or {@code certificate}. */
    public record PaymentMethod(
            String source, String id, String brand, String lastFour, Integer amount) {

        /** The credit card {@code id}. */
        public static PaymentMethod creditCard(final String id, final CreditCard card) {
            return new PaymentMethod("credit_card", id, card.brand(), card.lastFour(), null);
        }

        /** How the user would name it. */
        public String describe() {
            return switch (source) {
                case "credit_card" -> "my " + brand + " credit card ending in " + lastFour;
                case "gift_card" -> "my gift card " + id;
                default -> "my certificate " + id;
            };
        }

        /** The same method with another balance. */
        public PaymentMethod withAmount(final int newAmount) {
            return new PaymentMethod(source, id, brand, lastFour, newAmount);
        }
    }

    /** A traveller. */
    public record Passenger(String firstName, String lastName, String dob) {}

    /** A customer. */
    public record User(
            String userId,
            Name name,
            Address address,
            String email,
            String dob,
            String membership,
            Map<String, PaymentMethod> paymentMethods,
            List<Passenger> savedPassengers,
            List<String> reservations) {

        /** Copies the collections. */
        public User {
            paymentMethods = StableMaps.sorted(paymentMethods);
            savedPassengers = List.copyOf(savedPassengers);
            reservations = List.copyOf(reservations);
        }

        /** The same user with one payment method added or replaced. */
        public User withPaymentMethod(final PaymentMethod method) {
            final Map<String, PaymentMethod> methods = new TreeMap<>(paymentMethods);
            methods.put(method.id(), method);
            return withAccounts(methods, reservations);
        }

        /** The same user with one more reservation. */
        public User withReservation(final String reservationId) {
            final List<String> ids = new java.util.ArrayList<>(reservations);
            ids.add(reservationId);
            return withAccounts(paymentMethods, ids);
        }

        /** The same user with other payment methods and reservation ids. */
        private User withAccounts(
                final Map<String, PaymentMethod> methods, final List<String> reservationIds) {
            return new User(
                    userId,
                    name,
                    address,
                    email,
                    dob,
                    membership,
                    methods,
                    savedPassengers,
                    reservationIds);
        }

        /** The user's first credit card; every generated user has one. */
        public PaymentMethod creditCard() {
            return paymentMethods.values().stream()
                    .filter(m -> m.source().equals("credit_card"))
                    .findFirst()
                    .orElseThrow();
        }

        /** The user as a passenger. */
        public Passenger asPassenger() {
            return new Passenger(name.firstName(), name.lastName(), dob);
        }
    }

    /** A flight on one date: its status, seats left and prices per cabin. */
    public record FlightDate(
            String status, Map<String, Integer> availableSeats, Map<String, Integer> prices) {

        /** Copies the maps. */
        public FlightDate {
            availableSeats = StableMaps.sorted(availableSeats);
            prices = StableMaps.sorted(prices);
        }

        /** The same date with fewer seats left in a cabin. */
        public FlightDate withSeatsTaken(final String cabin, final int seats) {
            final Map<String, Integer> left = new TreeMap<>(availableSeats);
            left.put(cabin, left.get(cabin) - seats);
            return new FlightDate(status, left, prices);
        }
    }

    /** A scheduled flight with its dates. */
    public record Flight(
            String flightNumber,
            String origin,
            String destination,
            String scheduledDepartureTimeEst,
            String scheduledArrivalTimeEst,
            Map<String, FlightDate> dates) {

        /** Copies the dates. */
        public Flight {
            dates = StableMaps.sorted(dates);
        }

        /** The same flight with one date replaced. */
        public Flight withDate(final String date, final FlightDate flightDate) {
            final Map<String, FlightDate> all = new TreeMap<>(dates);
            all.put(date, flightDate);
            return new Flight(
                    flightNumber,
                    origin,
                    destination,
                    scheduledDepartureTimeEst,
                    scheduledArrivalTimeEst,
                    all);
        }
    }

    /** One flight of a reservation, at the price paid per passenger. */
    public record ReservationFlight(
            String flightNumber, String date, int price, String origin, String destination) {}

    /** A payment (positive) or refund (negative) of a reservation. */
    public record AirlinePayment(String paymentId, int amount) {}

    /** A reservation; {@code status} is null while active and {@code cancelled} after. */
    public record Reservation(
            String reservationId,
            String userId,
            String origin,
            String destination,
            String flightType,
            String cabin,
            List<ReservationFlight> flights,
            List<Passenger> passengers,
            List<AirlinePayment> paymentHistory,
            String createdAt,
            int totalBaggages,
            int nonfreeBaggages,
            String insurance,
            String status) {

        /** Copies the lists. */
        public Reservation {
            flights = List.copyOf(flights);
            passengers = List.copyOf(passengers);
            paymentHistory = List.copyOf(paymentHistory);
        }

        /** The same reservation with other flights, cabin and payments. */
        public Reservation withFlights(
                final String newCabin,
                final List<ReservationFlight> newFlights,
                final List<AirlinePayment> payments) {
            return edited(
                    draft -> {
                        draft.cabin = newCabin;
                        draft.flights = newFlights;
                        draft.paymentHistory = payments;
                    });
        }

        /** The same reservation with other bag counts and payments. */
        public Reservation withBaggages(
                final int total, final int nonfree, final List<AirlinePayment> payments) {
            return edited(
                    draft -> {
                        draft.totalBaggages = total;
                        draft.nonfreeBaggages = nonfree;
                        draft.paymentHistory = payments;
                    });
        }

        /** The same reservation with other passengers. */
        public Reservation withPassengers(final List<Passenger> newPassengers) {
            return edited(draft -> draft.passengers = newPassengers);
        }

        /** The same reservation, cancelled, with its refunds. */
        public Reservation cancelled(final List<AirlinePayment> payments) {
            return edited(
                    draft -> {
                        draft.paymentHistory = payments;
                        draft.status = "cancelled";
                    });
        }

        /** This reservation with the changes one edit makes to a draft of its changeable fields. */
        private Reservation edited(final Consumer<Draft> edit) {
            final Draft draft = new Draft(this);
            edit.accept(draft);
            return new Reservation(
                    reservationId,
                    userId,
                    origin,
                    destination,
                    flightType,
                    draft.cabin,
                    draft.flights,
                    draft.passengers,
                    draft.paymentHistory,
                    createdAt,
                    draft.totalBaggages,
                    draft.nonfreeBaggages,
                    insurance,
                    draft.status);
        }

        /**
         * The fields changes to a booking touch, starting from a reservation's values; the record
         * stays immutable while each {@code with...} method sets only what it changes.
         */
        private static final class Draft {
            private String cabin;
            private List<ReservationFlight> flights;
            private List<Passenger> passengers;
            private List<AirlinePayment> paymentHistory;
            private int totalBaggages;
            private int nonfreeBaggages;
            private String status;

            private Draft(final Reservation reservation) {
                cabin = reservation.cabin;
                flights = reservation.flights;
                passengers = reservation.passengers;
                paymentHistory = reservation.paymentHistory;
                totalBaggages = reservation.totalBaggages;
                nonfreeBaggages = reservation.nonfreeBaggages;
                status = reservation.status;
            }
        }

        /** The total paid, net of refunds. */
        public int paid() {
            return paymentHistory.stream().mapToInt(AirlinePayment::amount).sum();
        }
    }

    /** Free checked bags per passenger for a membership level and cabin. */
    public static int freeBagsPerPassenger(final String membership, final String cabin) {
        final int level =
                switch (membership) {
                    case "gold" -> 2;
                    case "silver" -> 1;
                    default -> 0;
                };
        return level + CABINS.indexOf(cabin);
    }

    /** How many of {@code totalBags} checked bags are not free for these passengers. */
    public static int nonfreeBags(
            final String membership,
            final String cabin,
            final int passengers,
            final int totalBags) {
        return Math.max(0, totalBags - freeBagsPerPassenger(membership, cabin) * passengers);
    }
}
