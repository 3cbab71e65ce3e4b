package dev.rwml.env.tau2.airline;

import dev.rwml.env.tau2.Args;
import dev.rwml.env.tau2.DomainTools;
import dev.rwml.env.tau2.Fakes;
import dev.rwml.env.tau2.Tau2Json;
import dev.rwml.env.tau2.ToolCall;
import dev.rwml.env.tau2.ToolError;
import dev.rwml.env.tau2.airline.AirlineDb.AirlinePayment;
import dev.rwml.env.tau2.airline.AirlineDb.Flight;
import dev.rwml.env.tau2.airline.AirlineDb.FlightDate;
import dev.rwml.env.tau2.airline.AirlineDb.Passenger;
import dev.rwml.env.tau2.airline.AirlineDb.PaymentMethod;
import dev.rwml.env.tau2.airline.AirlineDb.Reservation;
import dev.rwml.env.tau2.airline.AirlineDb.ReservationFlight;
import dev.rwml.env.tau2.airline.AirlineDb.User;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

/**
 * The airline domain's tools over an {@link AirlineDb}. Every write validates everything before it
 * changes anything, so a refused call leaves the database as it was.
 */
public final class AirlineTools extends DomainTools<AirlineDb> {

    /** Price of travel insurance per passenger. */
    public static final int INSURANCE_PER_PASSENGER = 30;

    /** Price of each non-free checked bag. */
    public static final int PRICE_PER_NONFREE_BAG = 50;

    private static final List<String> TOOLS =
            List.of(
                    "book_reservation",
                    "calculate",
                    "cancel_reservation",
                    "get_flight_status",
                    "get_reservation_details",
                    "get_user_details",
                    "list_all_airports",
                    "search_direct_flight",
                    "search_onestop_flight",
                    "send_certificate",
                    "transfer_to_human_agents",
                    "update_reservation_baggages",
                    "update_reservation_flights",
                    "update_reservation_passengers");

    private static final String POLICY =
            "You are a customer service agent of an airline. The current time is "
                    + AirlineDb.NOW.replace('T', ' ')
                    + " EST. Identify the user by user id. Act only for that user. A booking costs"
                    + " the cabin price of each flight times the passengers, plus $30 per passenger"
                    + " for insurance and $50 per non-free checked bag (free bags per passenger:"
                    + " regular 0/1/2, silver 1/2/3, gold 2/3/4 for basic economy/economy/business);"
                    + " the payments must add up to the total. A reservation can be cancelled if"
                    + " booked within 24 hours, in business, insured, or if the airline cancelled a"
                    + " flight, and never after a flight has departed. Basic economy flights cannot"
                    + " be modified; the cabin can be changed before departure. Bags can be added,"
                    + " not removed. Before any change, list its details and ask the user to"
                    + " confirm (yes/no).";

    private static final Pattern RESERVATION_ID = Pattern.compile("\\b[A-Z0-9]{6}\\b");
    private static final Pattern USER_ID = Pattern.compile("\\b[a-z]+_[a-z]+_\\d{3,4}\\b");
    private static final Pattern FLIGHT_DATE =
            Pattern.compile("\\b(HAT\\d{3})\\b[^\\n]{0,40}?(2024-\\d{2}-\\d{2})");

    /** Tools over the given database (which they change). */
    public AirlineTools(final AirlineDb db) {
        super("airline", POLICY, TOOLS, db, AirlineTools::new);
    }

    @Override
    protected String callDomainTool(final String name, final Args a) {
        return switch (name) {
            case "get_user_details" -> Tau2Json.write(user(a.text("user_id")));
            case "get_reservation_details" -> Tau2Json.write(reservation(a.text("reservation_id")));
            case "list_all_airports" -> Tau2Json.write(db.airports());
            case "search_direct_flight" ->
                    Tau2Json.write(searchDirect(a.text("origin"), a.text("destination"), date(a)));
            case "search_onestop_flight" ->
                    Tau2Json.write(searchOneStop(a.text("origin"), a.text("destination"), date(a)));
            case "get_flight_status" -> flightDate(a.text("flight_number"), date(a)).status();
            case "book_reservation" -> book(a);
            case "cancel_reservation" -> cancel(a.text("reservation_id"));
            case "update_reservation_flights" -> updateFlights(a);
            case "update_reservation_baggages" -> updateBaggages(a);
            case "update_reservation_passengers" ->
                    updatePassengers(a.text("reservation_id"), passengers(a));
            case "send_certificate" -> sendCertificate(a.text("user_id"), a.integer("amount"));
            default -> throw unknownTool(name);
        };
    }

    @Override
    public List<ToolCall> plausibleReads(final String seenText) {
        final List<ToolCall> calls = new ArrayList<>();
        calls.add(ToolCall.of("list_all_airports"));
        for (final String id : lastMatches(USER_ID, seenText, MatchResult::group)) {
            calls.add(ToolCall.of("get_user_details", "user_id", id));
        }
        for (final String id : lastMatches(RESERVATION_ID, seenText, MatchResult::group)) {
            if (db.reservations().containsKey(id) || id.chars().anyMatch(Character::isDigit)) {
                calls.add(ToolCall.of("get_reservation_details", "reservation_id", id));
            }
        }
        for (final List<String> f :
                lastMatches(FLIGHT_DATE, seenText, m -> List.of(m.group(1), m.group(2)))) {
            calls.add(
                    ToolCall.of("get_flight_status", "flight_number", f.get(0), "date", f.get(1)));
        }
        return calls;
    }

    private static String date(final Args a) {
        final String date = a.text("date");
        if (!date.matches("\\d{4}-\\d{2}-\\d{2}")) {
            throw ToolError.badArgument("date must be written yyyy-mm-dd, got '" + date + "'");
        }
        return date;
    }

    private User user(final String userId) {
        return found(db.users().get(userId), "User " + userId + " not found");
    }

    private Reservation reservation(final String reservationId) {
        return found(
                db.reservations().get(reservationId),
                "Reservation " + reservationId + " not found");
    }

    private Reservation activeReservation(final String reservationId) {
        final Reservation r = reservation(reservationId);
        if ("cancelled".equals(r.status())) {
            throw ToolError.rule("Reservation " + reservationId + " is cancelled");
        }
        return r;
    }

    private Flight flight(final String flightNumber) {
        return found(db.flights().get(flightNumber), "Flight " + flightNumber + " not found");
    }

    private FlightDate flightDate(final String flightNumber, final String date) {
        return found(
                flight(flightNumber).dates().get(date),
                "Flight " + flightNumber + " not found on date " + date);
    }

    /** A search result: one flight on one date. */
    public record FlightOnDate(
            String flightNumber,
            String origin,
            String destination,
            String date,
            String status,
            String scheduledDepartureTimeEst,
            String scheduledArrivalTimeEst,
            Map<String, Integer> availableSeats,
            Map<String, Integer> prices) {}

    private static FlightOnDate onDate(final Flight f, final String date) {
        final FlightDate fd = f.dates().get(date);
        return new FlightOnDate(
                f.flightNumber(),
                f.origin(),
                f.destination(),
                date,
                fd.status(),
                f.scheduledDepartureTimeEst(),
                f.scheduledArrivalTimeEst(),
                fd.availableSeats(),
                fd.prices());
    }

    private List<FlightOnDate> searchDirect(
            final String origin, final String destination, final String date) {
        return db.flights().values().stream()
                .filter(f -> f.origin().equals(origin) && f.destination().equals(destination))
                .filter(f -> f.dates().containsKey(date))
                .filter(f -> f.dates().get(date).status().equals("available"))
                .map(f -> onDate(f, date))
                .toList();
    }

    private List<List<FlightOnDate>> searchOneStop(
            final String origin, final String destination, final String date) {
        final List<List<FlightOnDate>> out = new ArrayList<>();
        for (final Flight first : db.flights().values()) {
            if (!first.origin().equals(origin) || first.destination().equals(destination)) {
                continue;
            }
            for (final FlightOnDate leg1 : searchDirect(origin, first.destination(), date)) {
                if (!leg1.flightNumber().equals(first.flightNumber())) {
                    continue;
                }
                for (final FlightOnDate leg2 :
                        searchDirect(first.destination(), destination, date)) {
                    if (leg2.scheduledDepartureTimeEst().compareTo(leg1.scheduledArrivalTimeEst())
                            > 0) {
                        out.add(List.of(leg1, leg2));
                    }
                }
            }
        }
        return out;
    }

    private static String oneOf(final Args a, final String key, final List<String> allowed) {
        final String value = a.text(key);
        if (!allowed.contains(value)) {
            throw ToolError.badArgument(
                    "argument '" + key + "' must be one of " + allowed + ", got '" + value + "'");
        }
        return value;
    }

    private static List<Passenger> passengers(final Args a) {
        final List<Passenger> out = new ArrayList<>();
        for (final Args p : a.objects("passengers")) {
            final String dob = p.text("dob");
            if (!dob.matches("\\d{4}-\\d{2}-\\d{2}")) {
                throw ToolError.badArgument("passenger dob must be written yyyy-mm-dd");
            }
            out.add(new Passenger(p.text("first_name"), p.text("last_name"), dob));
        }
        if (out.size() > 5) {
            throw ToolError.rule("A reservation can have at most 5 passengers");
        }
        return out;
    }

    private static void requireBags(
            final User user,
            final String cabin,
            final int passengers,
            final int total,
            final int nonfree) {
        if (total < 0 || nonfree < 0) {
            throw ToolError.badArgument("baggage counts must not be negative");
        }
        final int expected = AirlineDb.nonfreeBags(user.membership(), cabin, passengers, total);
        if (nonfree != expected) {
            throw ToolError.rule(
                    "nonfree_baggages should be "
                            + expected
                            + " for "
                            + total
                            + " bags, "
                            + passengers
                            + " passengers in "
                            + cabin
                            + " for a "
                            + user.membership()
                            + " member");
        }
    }

    private String book(final Args a) {
        final User user = user(a.text("user_id"));
        final String origin = a.text("origin");
        final String destination = a.text("destination");
        final String flightType = oneOf(a, "flight_type", List.of("one_way", "round_trip"));
        final String cabin = oneOf(a, "cabin", AirlineDb.CABINS);
        final String insurance = oneOf(a, "insurance", List.of("yes", "no"));
        final List<Passenger> passengers = passengers(a);
        final int totalBags = a.integer("total_baggages");
        final int nonfreeBags = a.integer("nonfree_baggages");
        requireBags(user, cabin, passengers.size(), totalBags, nonfreeBags);
        final List<ReservationFlight> flights = new ArrayList<>();
        for (final Args f : a.objects("flights")) {
            final String number = f.text("flight_number");
            final String date = date(f);
            final FlightDate fd = available(number, date, " for booking");
            requireSeats(number, date, fd, cabin, passengers.size());
            flights.add(reservationFlight(number, date, fd, cabin));
        }
        requireRoute(flights, origin, destination, flightType);
        final int total =
                flights.stream().mapToInt(ReservationFlight::price).sum() * passengers.size()
                        + (insurance.equals("yes")
                                ? INSURANCE_PER_PASSENGER * passengers.size()
                                : 0)
                        + PRICE_PER_NONFREE_BAG * nonfreeBags;
        final List<AirlinePayment> payments = new ArrayList<>();
        for (final Args p : a.objects("payment_methods")) {
            payments.add(new AirlinePayment(p.text("payment_id"), p.integer("amount")));
        }
        User payer = charge(user, payments, total, true);
        final String id = newReservationId(user.userId());
        final Reservation reservation =
                new Reservation(
                        id,
                        user.userId(),
                        origin,
                        destination,
                        flightType,
                        cabin,
                        flights,
                        passengers,
                        payments,
                        AirlineDb.NOW,
                        totalBags,
                        nonfreeBags,
                        insurance,
                        null);
        payer = payer.withReservation(id);
        for (final ReservationFlight f : flights) {
            final Flight flight = db.flights().get(f.flightNumber());
            db.flights()
                    .put(
                            f.flightNumber(),
                            flight.withDate(
                                    f.date(),
                                    flight.dates()
                                            .get(f.date())
                                            .withSeatsTaken(cabin, passengers.size())));
        }
        db.users().put(payer.userId(), payer);
        db.reservations().put(id, reservation);
        return Tau2Json.write(reservation);
    }

    private static void requireRoute(
            final List<ReservationFlight> flights,
            final String origin,
            final String destination,
            final String flightType) {
        for (int i = 1; i < flights.size(); i++) {
            if (!flights.get(i).origin().equals(flights.get(i - 1).destination())) {
                throw ToolError.rule(
                        "Flights do not connect: "
                                + flights.get(i - 1).flightNumber()
                                + " arrives at "
                                + flights.get(i - 1).destination()
                                + " but "
                                + flights.get(i).flightNumber()
                                + " leaves from "
                                + flights.get(i).origin());
            }
        }
        final String end = flightType.equals("round_trip") ? origin : destination;
        if (!flights.get(0).origin().equals(origin)
                || !flights.get(flights.size() - 1).destination().equals(end)) {
            throw ToolError.rule(
                    "The flights must go from "
                            + origin
                            + " to "
                            + end
                            + " for a "
                            + flightType
                            + " trip");
        }
        if (flightType.equals("round_trip")
                && flights.stream().noneMatch(f -> f.destination().equals(destination))) {
            throw ToolError.rule("A round trip must reach " + destination);
        }
    }

    /**
     * Validates payments against the user's methods and the total, and returns the user with the
     * gift-card and certificate balances drawn down.
     */
    private static User charge(
            final User user,
            final List<AirlinePayment> payments,
            final int total,
            final boolean certificatesAllowed) {
        User payer = user;
        int paid = 0;
        int certificates = 0;
        final Set<String> used = new HashSet<>();
        for (final AirlinePayment p : payments) {
            final PaymentMethod method =
                    found(
                            payer.paymentMethods().get(p.paymentId()),
                            "Payment method " + p.paymentId() + " not found");
            if (!used.add(p.paymentId())) {
                throw ToolError.rule("Payment method " + p.paymentId() + " is listed twice");
            }
            if (p.amount() <= 0) {
                throw ToolError.badArgument("payment amounts must be positive");
            }
            if (method.source().equals("certificate")) {
                if (!certificatesAllowed) {
                    throw ToolError.rule("Certificates cannot be used for this payment");
                }
                if (++certificates > 1) {
                    throw ToolError.rule("At most one certificate can be used per reservation");
                }
            }
            if (method.amount() != null) {
                if (method.amount() < p.amount()) {
                    throw ToolError.rule("Not enough balance in payment method " + p.paymentId());
                }
                payer = payer.withPaymentMethod(method.withAmount(method.amount() - p.amount()));
            }
            paid += p.amount();
        }
        if (paid != total) {
            throw ToolError.rule(
                    "Payment amount does not add up, total price is "
                            + total
                            + ", but paid "
                            + paid);
        }
        return payer;
    }

    private String newReservationId(final String userId) {
        final SplittableRandom rng =
                new SplittableRandom(31L * db.reservations().size() + userId.hashCode());
        String id;
        do {
            id = Fakes.code(rng, 6);
        } while (db.reservations().containsKey(id));
        return id;
    }

    private boolean departed(final ReservationFlight f) {
        final FlightDate fd = db.flights().get(f.flightNumber()).dates().get(f.date());
        return fd.status().equals("flying") || fd.status().equals("landed");
    }

    private String cancel(final String reservationId) {
        final Reservation r = activeReservation(reservationId);
        for (final ReservationFlight f : r.flights()) {
            if (departed(f)) {
                throw ToolError.rule(
                        "Flight "
                                + f.flightNumber()
                                + " on "
                                + f.date()
                                + " has already"
                                + " departed; the reservation cannot be cancelled");
            }
        }
        final boolean airlineCancelled =
                r.flights().stream()
                        .anyMatch(
                                f ->
                                        db.flights()
                                                .get(f.flightNumber())
                                                .dates()
                                                .get(f.date())
                                                .status()
                                                .equals("cancelled"));
        final boolean recent = r.createdAt().compareTo("2024-05-14T15:00:00") >= 0;
        if (!recent
                && !airlineCancelled
                && !r.cabin().equals("business")
                && !r.insurance().equals("yes")) {
            throw ToolError.rule(
                    "Reservation "
                            + reservationId
                            + " cannot be cancelled: it was booked more than"
                            + " 24 hours ago, is not in business, has no insurance and no flight"
                            + " was cancelled by the airline");
        }
        final List<AirlinePayment> history = new ArrayList<>(r.paymentHistory());
        for (final AirlinePayment p : r.paymentHistory()) {
            if (p.amount() > 0) {
                history.add(new AirlinePayment(p.paymentId(), -p.amount()));
            }
        }
        final Reservation cancelled = r.cancelled(history);
        db.reservations().put(reservationId, cancelled);
        return Tau2Json.write(cancelled);
    }

    /** Flight {@code number} on {@code date}, refused unless it is available. */
    private FlightDate available(final String number, final String date, final String forWhat) {
        final FlightDate fd = flightDate(number, date);
        if (!fd.status().equals("available")) {
            throw ToolError.rule(
                    "Flight "
                            + number
                            + " on "
                            + date
                            + " is not available"
                            + forWhat
                            + " (status: "
                            + fd.status()
                            + ")");
        }
        return fd;
    }

    /** Refuses unless flight {@code number} on {@code date} has {@code needed} seats in a cabin. */
    private static void requireSeats(
            final String number,
            final String date,
            final FlightDate fd,
            final String cabin,
            final int needed) {
        final int left = fd.availableSeats().get(cabin);
        if (left < needed) {
            throw ToolError.rule(
                    "Not enough seats on flight %s on %s: %s left in %s"
                            .formatted(number, date, left, cabin));
        }
    }

    /** Flight {@code number} on {@code date} at its price in {@code cabin}. */
    private ReservationFlight reservationFlight(
            final String number, final String date, final FlightDate fd, final String cabin) {
        final Flight flight = flight(number);
        return new ReservationFlight(
                number, date, fd.prices().get(cabin), flight.origin(), flight.destination());
    }

    private String updateFlights(final Args a) {
        final Reservation r = activeReservation(a.text("reservation_id"));
        final String cabin = oneOf(a, "cabin", AirlineDb.CABINS);
        final List<ReservationFlight> flights = new ArrayList<>();
        boolean flightsChanged = false;
        final List<Args> requested = a.objects("flights");
        for (final Args f : requested) {
            final String number = f.text("flight_number");
            final String date = date(f);
            final ReservationFlight kept =
                    r.flights().stream()
                            .filter(o -> o.flightNumber().equals(number) && o.date().equals(date))
                            .findFirst()
                            .orElse(null);
            flightsChanged |= kept == null;
            if (kept != null && cabin.equals(r.cabin())) {
                flights.add(kept);
                continue;
            }
            final FlightDate fd = available(number, date, "");
            requireSeats(number, date, fd, cabin, r.passengers().size());
            flights.add(reservationFlight(number, date, fd, cabin));
        }
        flightsChanged |= requested.size() != r.flights().size();
        if (flightsChanged && r.cabin().equals("basic_economy")) {
            throw ToolError.rule("Basic economy flights cannot be modified");
        }
        if (!cabin.equals(r.cabin())) {
            for (final ReservationFlight f : r.flights()) {
                if (departed(f)) {
                    throw ToolError.rule(
                            "The cabin cannot be changed: flight "
                                    + f.flightNumber()
                                    + " on "
                                    + f.date()
                                    + " has already departed");
                }
            }
        }
        requireRoute(flights, r.origin(), r.destination(), r.flightType());
        final int diff =
                (flights.stream().mapToInt(ReservationFlight::price).sum()
                                - r.flights().stream().mapToInt(ReservationFlight::price).sum())
                        * r.passengers().size();
        final String paymentId = a.text("payment_id");
        final User user = user(r.userId());
        final List<AirlinePayment> history = new ArrayList<>(r.paymentHistory());
        User payer = user;
        if (diff > 0) {
            payer = charge(user, List.of(new AirlinePayment(paymentId, diff)), diff, false);
            history.add(new AirlinePayment(paymentId, diff));
        } else {
            requireOwnNonCertificate(user, paymentId);
            if (diff < 0) {
                history.add(new AirlinePayment(paymentId, diff));
            }
        }
        final Reservation updated = r.withFlights(cabin, flights, history);
        db.users().put(payer.userId(), payer);
        db.reservations().put(r.reservationId(), updated);
        return Tau2Json.write(updated);
    }

    private static void requireOwnNonCertificate(final User user, final String paymentId) {
        final PaymentMethod method =
                found(
                        user.paymentMethods().get(paymentId),
                        "Payment method " + paymentId + " not found");
        if (method.source().equals("certificate")) {
            throw ToolError.rule("Certificates cannot be used for this payment");
        }
    }

    private String updateBaggages(final Args a) {
        final Reservation r = activeReservation(a.text("reservation_id"));
        final int total = a.integer("total_baggages");
        final int nonfree = a.integer("nonfree_baggages");
        final User user = user(r.userId());
        if (total < r.totalBaggages()) {
            throw ToolError.rule(
                    "Checked bags can only be added: the reservation already has "
                            + r.totalBaggages());
        }
        requireBags(user, r.cabin(), r.passengers().size(), total, nonfree);
        final int cost = PRICE_PER_NONFREE_BAG * (nonfree - r.nonfreeBaggages());
        final String paymentId = a.text("payment_id");
        final List<AirlinePayment> history = new ArrayList<>(r.paymentHistory());
        User payer = user;
        if (cost > 0) {
            payer = charge(user, List.of(new AirlinePayment(paymentId, cost)), cost, false);
            history.add(new AirlinePayment(paymentId, cost));
        } else {
            requireOwnNonCertificate(user, paymentId);
        }
        final Reservation updated = r.withBaggages(total, nonfree, history);
        db.users().put(payer.userId(), payer);
        db.reservations().put(r.reservationId(), updated);
        return Tau2Json.write(updated);
    }

    private String updatePassengers(final String reservationId, final List<Passenger> passengers) {
        final Reservation r = activeReservation(reservationId);
        if (passengers.size() != r.passengers().size()) {
            throw ToolError.rule(
                    "The number of passengers cannot change: the reservation has "
                            + r.passengers().size());
        }
        final Reservation updated = r.withPassengers(passengers);
        db.reservations().put(reservationId, updated);
        return Tau2Json.write(updated);
    }

    private String sendCertificate(final String userId, final int amount) {
        final User user = user(userId);
        if (amount <= 0) {
            throw ToolError.badArgument("amount must be positive");
        }
        final SplittableRandom rng =
                new SplittableRandom(31L * user.paymentMethods().size() + userId.hashCode());
        String id;
        do {
            id = "certificate_" + Fakes.digits(rng, 7);
        } while (user.paymentMethods().containsKey(id));
        db.users()
                .put(
                        userId,
                        user.withPaymentMethod(
                                new PaymentMethod("certificate", id, null, null, amount)));
        return "Certificate " + id + " added to user " + userId + " with amount " + amount + ".";
    }
}
