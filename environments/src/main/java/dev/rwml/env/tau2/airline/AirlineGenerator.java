package dev.rwml.env.tau2.airline;

import dev.rwml.env.tau2.Fakes;
import dev.rwml.env.tau2.InfoKind;
import dev.rwml.env.tau2.Name;
import dev.rwml.env.tau2.TaskBuilder;
import dev.rwml.env.tau2.TaskKinds;
import dev.rwml.env.tau2.Tau2Task;
import dev.rwml.env.tau2.ToolCall;
import dev.rwml.env.tau2.airline.AirlineDb.AirlinePayment;
import dev.rwml.env.tau2.airline.AirlineDb.Airport;
import dev.rwml.env.tau2.airline.AirlineDb.Flight;
import dev.rwml.env.tau2.airline.AirlineDb.FlightDate;
import dev.rwml.env.tau2.airline.AirlineDb.Passenger;
import dev.rwml.env.tau2.airline.AirlineDb.PaymentMethod;
import dev.rwml.env.tau2.airline.AirlineDb.Reservation;
import dev.rwml.env.tau2.airline.AirlineDb.ReservationFlight;
import dev.rwml.env.tau2.airline.AirlineDb.User;
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

/** Generates airline databases and tasks (with gold plans) from a seeded generator. */
public final class AirlineGenerator {

    /** The task kinds, in the order the generator tries them. */
    public static final List<String> KINDS =
            List.of(
                    "book_reservation",
                    "cancel_reservation",
                    "update_reservation_baggages",
                    "update_reservation_passengers",
                    "upgrade_cabin",
                    "flight_status",
                    "refuse_basic_economy_change",
                    "send_certificate",
                    "transfer_to_human_agents");

    private static final List<Airport> AIRPORTS =
            List.of(
                    new Airport("ATL", "Atlanta"),
                    new Airport("BOS", "Boston"),
                    new Airport("DEN", "Denver"),
                    new Airport("DFW", "Dallas"),
                    new Airport("JFK", "New York"),
                    new Airport("LAX", "Los Angeles"),
                    new Airport("MIA", "Miami"),
                    new Airport("ORD", "Chicago"),
                    new Airport("SEA", "Seattle"),
                    new Airport("SFO", "San Francisco"));

    private static final List<String> DATES = dates();
    private static final String TODAY = AirlineDb.NOW.substring(0, 10);
    private static final int ROUTE_PAIRS = 12;
    private static final int USERS = 10;

    private AirlineGenerator() {}

    private static List<String> dates() {
        final List<String> out = new ArrayList<>();
        for (int day = 10; day <= 25; day++) {
            out.add("2024-05-" + day);
        }
        return out;
    }

    /** A database: ten airports, twelve return routes over sixteen days, ten users. */
    public static AirlineDb database(final SplittableRandom rng) {
        final AirlineDb db =
                new AirlineDb(AIRPORTS, new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
        final Set<String> ids = new HashSet<>();
        for (int i = 0; i < ROUTE_PAIRS; i++) {
            final Airport a = Fakes.pick(rng, AIRPORTS);
            Airport b;
            do {
                b = Fakes.pick(rng, AIRPORTS);
            } while (b.equals(a));
            for (final Flight f : List.of(flight(rng, a, b, ids), flight(rng, b, a, ids))) {
                db.flights().put(f.flightNumber(), f);
            }
        }
        while (db.users().size() < USERS) {
            final Name name = Fakes.name(rng);
            final String userId = Fakes.userId(rng, name);
            if (!ids.add(userId)) {
                continue;
            }
            final String dob = Fakes.dateOfBirth(rng);
            final String membership = Fakes.pick(rng, List.of("regular", "silver", "gold"));
            final Map<String, PaymentMethod> methods = paymentMethods(rng, ids);
            final List<Passenger> saved = new ArrayList<>();
            for (int i = rng.nextInt(3); i > 0; i--) {
                final Name other = Fakes.name(rng);
                saved.add(
                        new Passenger(other.firstName(), other.lastName(), Fakes.dateOfBirth(rng)));
            }
            User user =
                    new User(
                            userId,
                            name,
                            Fakes.address(rng),
                            name.firstName().toLowerCase()
                                    + "."
                                    + name.lastName().toLowerCase()
                                    + Fakes.digits(rng, 4)
                                    + "@example.com",
                            dob,
                            membership,
                            methods,
                            saved,
                            List.of());
            for (int i = 1 + rng.nextInt(3); i > 0; i--) {
                final Reservation r = reservation(rng, db, user, ids);
                db.reservations().put(r.reservationId(), r);
                user = user.withReservation(r.reservationId());
            }
            db.users().put(userId, user);
        }
        return db;
    }

    private static String unique(
            final SplittableRandom rng,
            final Set<String> ids,
            final String prefix,
            final boolean code,
            final int n) {
        String id;
        do {
            id = prefix + (code ? Fakes.code(rng, n) : Fakes.digits(rng, n));
        } while (!ids.add(id));
        return id;
    }

    private static Flight flight(
            final SplittableRandom rng,
            final Airport from,
            final Airport to,
            final Set<String> ids) {
        final int departure = 5 + rng.nextInt(14);
        final int arrival = Math.min(23, departure + 1 + rng.nextInt(5));
        final Map<String, FlightDate> dates = new TreeMap<>();
        for (final String date : DATES) {
            final String status;
            final int cmp = date.compareTo(TODAY);
            if (cmp < 0) {
                status = "landed";
            } else if (cmp == 0) {
                status =
                        departure < 15
                                ? Fakes.pick(rng, List.of("landed", "flying"))
                                : Fakes.pick(rng, List.of("on time", "delayed", "cancelled"));
            } else {
                status = rng.nextInt(12) == 0 ? "cancelled" : "available";
            }
            final Map<String, Integer> seats = new TreeMap<>();
            final Map<String, Integer> prices = new TreeMap<>();
            seats.put("basic_economy", rng.nextInt(21));
            seats.put("economy", rng.nextInt(21));
            seats.put("business", rng.nextInt(21));
            prices.put("basic_economy", 50 + rng.nextInt(51));
            prices.put("economy", 100 + rng.nextInt(101));
            prices.put("business", 200 + rng.nextInt(301));
            dates.put(date, new FlightDate(status, seats, prices));
        }
        return new Flight(
                unique(rng, ids, "HAT", false, 3),
                from.iata(),
                to.iata(),
                String.format("%02d:00:00", departure),
                String.format("%02d:%02d:00", arrival, 30 * rng.nextInt(2)),
                dates);
    }

    private static Map<String, PaymentMethod> paymentMethods(
            final SplittableRandom rng, final Set<String> ids) {
        final Map<String, PaymentMethod> methods = new TreeMap<>();
        final String card = unique(rng, ids, "credit_card_", false, 7);
        methods.put(
                card,
                new PaymentMethod(
                        "credit_card",
                        card,
                        rng.nextBoolean() ? "visa" : "mastercard",
                        Fakes.digits(rng, 4),
                        null));
        if (rng.nextBoolean()) {
            final String gift = unique(rng, ids, "gift_card_", false, 7);
            methods.put(gift, new PaymentMethod("gift_card", gift, null, null, rng.nextInt(300)));
        }
        if (rng.nextInt(3) == 0) {
            final String cert = unique(rng, ids, "certificate_", false, 7);
            methods.put(
                    cert,
                    new PaymentMethod("certificate", cert, null, null, 100 + 50 * rng.nextInt(9)));
        }
        return methods;
    }

    private static Reservation reservation(
            final SplittableRandom rng,
            final AirlineDb db,
            final User user,
            final Set<String> ids) {
        final Flight out = Fakes.pick(rng, List.copyOf(db.flights().values()));
        final Optional<Flight> back =
                db.flights().values().stream()
                        .filter(f -> f.origin().equals(out.destination()))
                        .filter(f -> f.destination().equals(out.origin()))
                        .findFirst();
        final int day = rng.nextInt(DATES.size());
        final boolean roundTrip = back.isPresent() && day < DATES.size() - 1 && rng.nextBoolean();
        final String cabin = Fakes.pick(rng, AirlineDb.CABINS);
        final List<ReservationFlight> flights = new ArrayList<>();
        flights.add(leg(out, DATES.get(day), cabin));
        if (roundTrip) {
            final String returnDate = DATES.get(day + 1 + rng.nextInt(DATES.size() - day - 1));
            flights.add(leg(back.get(), returnDate, cabin));
        }
        final List<Passenger> passengers = new ArrayList<>();
        passengers.add(user.asPassenger());
        for (final Passenger p : user.savedPassengers()) {
            if (rng.nextBoolean()) {
                passengers.add(p);
            }
        }
        final int total = rng.nextInt(2 * passengers.size() + 1);
        final int nonfree =
                Math.max(
                        0,
                        total
                                - AirlineDb.freeBagsPerPassenger(user.membership(), cabin)
                                        * passengers.size());
        final String insurance = rng.nextInt(3) == 0 ? "yes" : "no";
        final int price =
                flights.stream().mapToInt(ReservationFlight::price).sum() * passengers.size()
                        + (insurance.equals("yes") ? 30 * passengers.size() : 0)
                        + 50 * nonfree;
        final String card =
                user.paymentMethods().values().stream()
                        .filter(m -> m.source().equals("credit_card"))
                        .findFirst()
                        .orElseThrow()
                        .id();
        final String createdAt =
                rng.nextInt(4) == 0
                        ? String.format(
                                "2024-05-14T%02d:%02d:00", 16 + rng.nextInt(8), rng.nextInt(60))
                        : String.format(
                                "2024-05-0%dT%02d:00:00", 1 + rng.nextInt(9), rng.nextInt(24));
        return new Reservation(
                unique(rng, ids, "", true, 6),
                user.userId(),
                out.origin(),
                out.destination(),
                roundTrip ? "round_trip" : "one_way",
                cabin,
                flights,
                passengers,
                List.of(new AirlinePayment(card, price)),
                createdAt,
                total,
                nonfree,
                insurance,
                rng.nextInt(10) == 0 ? "cancelled" : null);
    }

    private static ReservationFlight leg(final Flight f, final String date, final String cabin) {
        return new ReservationFlight(
                f.flightNumber(),
                date,
                f.dates().get(date).prices().get(cabin),
                f.origin(),
                f.destination());
    }

    /** A task of a kind that this database supports, chosen at random. */
    public static Tau2Task task(final String id, final AirlineDb db, final SplittableRandom rng) {
        return TaskKinds.firstFitting(id, KINDS, rng, kind -> task(id, kind, db, rng));
    }

    /** A task of the given kind, or empty when nothing in the database fits it. */
    public static Optional<Tau2Task> task(
            final String id, final String kind, final AirlineDb db, final SplittableRandom rng) {
        return switch (kind) {
            case "book_reservation" -> book(id, kind, db, rng);
            case "cancel_reservation" ->
                    pick(db, rng, r -> active(r) && notDeparted(db, r) && cancellable(db, r))
                            .map(r -> cancel(lookedUp(id, kind, r), r));
            case "update_reservation_baggages" ->
                    pick(db, rng, AirlineGenerator::active)
                            .map(r -> bags(lookedUp(id, kind, r), db, rng, r));
            case "update_reservation_passengers" ->
                    pick(db, rng, AirlineGenerator::active)
                            .map(r -> passengers(lookedUp(id, kind, r), rng, r));
            case "upgrade_cabin" ->
                    pick(
                                    db,
                                    rng,
                                    r ->
                                            active(r)
                                                    && !r.cabin().equals("business")
                                                    && bookable(db, r, "business"))
                            .map(r -> upgrade(lookedUp(id, kind, r), db, r));
            case "flight_status" -> Optional.of(status(id, kind, db, rng));
            case "refuse_basic_economy_change" ->
                    pick(
                                    db,
                                    rng,
                                    r ->
                                            active(r)
                                                    && r.cabin().equals("basic_economy")
                                                    && notDeparted(db, r))
                            .map(r -> refuse(lookedUp(id, kind, r)));
            case "send_certificate" ->
                    pick(db, rng, r -> active(r) && disrupted(db, r).isPresent())
                            .map(r -> certificate(lookedUp(id, kind, r), db, r));
            case "transfer_to_human_agents" -> Optional.of(transfer(id, kind, db, rng));
            default -> throw new IllegalArgumentException("unknown airline task kind " + kind);
        };
    }

    private static boolean active(final Reservation r) {
        return r.status() == null;
    }

    private static FlightDate dateOf(final AirlineDb db, final ReservationFlight f) {
        return db.flights().get(f.flightNumber()).dates().get(f.date());
    }

    private static boolean notDeparted(final AirlineDb db, final Reservation r) {
        return r.flights().stream()
                .map(f -> dateOf(db, f).status())
                .noneMatch(s -> s.equals("flying") || s.equals("landed"));
    }

    private static boolean cancellable(final AirlineDb db, final Reservation r) {
        return r.createdAt().compareTo("2024-05-14T15:00:00") >= 0
                || r.cabin().equals("business")
                || r.insurance().equals("yes")
                || r.flights().stream().anyMatch(f -> dateOf(db, f).status().equals("cancelled"));
    }

    private static boolean bookable(final AirlineDb db, final Reservation r, final String cabin) {
        return r.flights().stream()
                .map(f -> dateOf(db, f))
                .allMatch(
                        fd ->
                                fd.status().equals("available")
                                        && fd.availableSeats().get(cabin) >= r.passengers().size());
    }

    private static Optional<ReservationFlight> disrupted(final AirlineDb db, final Reservation r) {
        final User user = db.users().get(r.userId());
        final boolean eligible =
                !user.membership().equals("regular")
                        || r.insurance().equals("yes")
                        || r.cabin().equals("business");
        return eligible
                ? r.flights().stream()
                        .filter(
                                f -> {
                                    final String s = dateOf(db, f).status();
                                    return s.equals("delayed") || s.equals("cancelled");
                                })
                        .findFirst()
                : Optional.empty();
    }

    private static Optional<Reservation> pick(
            final AirlineDb db, final SplittableRandom rng, final Predicate<Reservation> fits) {
        return Fakes.pickFitting(rng, db.reservations().values(), fits);
    }

    private static String card(final User user) {
        return user.paymentMethods().values().stream()
                .filter(m -> m.source().equals("credit_card"))
                .findFirst()
                .orElseThrow()
                .id();
    }

    private static void identify(final TaskBuilder b, final String userId) {
        b.ask(InfoKind.USER_ID, "My user id is " + userId + ".");
        b.call(ToolCall.of("get_user_details", "user_id", userId));
    }

    /** A task that identifies the reservation's user and then looks the reservation up. */
    private static TaskBuilder lookedUp(final String id, final String kind, final Reservation r) {
        final TaskBuilder b = new TaskBuilder(id, kind);
        identify(b, r.userId());
        b.ask(InfoKind.RESERVATION_ID, "The reservation id is " + r.reservationId() + ".");
        b.call(ToolCall.of("get_reservation_details", "reservation_id", r.reservationId()));
        return b;
    }

    private static String describe(final List<Passenger> passengers) {
        return passengers.stream()
                .map(p -> p.firstName() + " " + p.lastName() + " (born " + p.dob() + ")")
                .collect(Collectors.joining(" and "));
    }

    private static List<Map<String, Object>> passengerArgs(final List<Passenger> passengers) {
        final List<Map<String, Object>> out = new ArrayList<>();
        for (final Passenger p : passengers) {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("first_name", p.firstName());
            m.put("last_name", p.lastName());
            m.put("dob", p.dob());
            out.add(m);
        }
        return out;
    }

    private static List<Map<String, Object>> flightArgs(final List<ReservationFlight> flights) {
        final List<Map<String, Object>> out = new ArrayList<>();
        for (final ReservationFlight f : flights) {
            out.add(Map.of("flight_number", f.flightNumber(), "date", f.date()));
        }
        return out;
    }

    private static Optional<Tau2Task> book(
            final String id, final String kind, final AirlineDb db, final SplittableRandom rng) {
        final User user = Fakes.pick(rng, List.copyOf(db.users().values()));
        final String cabin = Fakes.pick(rng, AirlineDb.CABINS);
        final List<Passenger> passengers = new ArrayList<>();
        passengers.add(user.asPassenger());
        if (!user.savedPassengers().isEmpty() && rng.nextBoolean()) {
            passengers.add(user.savedPassengers().get(0));
        }
        final List<Flight> flights = new ArrayList<>(db.flights().values());
        final List<String> future = DATES.stream().filter(d -> d.compareTo(TODAY) > 0).toList();
        for (int attempt = 0; attempt < 20; attempt++) {
            final Flight flight = Fakes.pick(rng, flights);
            final String date = Fakes.pick(rng, future);
            final FlightDate fd = flight.dates().get(date);
            if (!fd.status().equals("available")
                    || fd.availableSeats().get(cabin) < passengers.size()) {
                continue;
            }
            return Optional.of(bookTask(id, kind, user, flight, date, cabin, passengers, rng));
        }
        return Optional.empty();
    }

    private static Tau2Task bookTask(
            final String id,
            final String kind,
            final User user,
            final Flight flight,
            final String date,
            final String cabin,
            final List<Passenger> passengers,
            final SplittableRandom rng) {
        final TaskBuilder b = new TaskBuilder(id, kind);
        identify(b, user.userId());
        b.ask(
                InfoKind.TRIP,
                "I want a one way trip from "
                        + flight.origin()
                        + " to "
                        + flight.destination()
                        + " on "
                        + date
                        + ".");
        b.call(
                ToolCall.of(
                        "search_direct_flight",
                        "origin",
                        flight.origin(),
                        "destination",
                        flight.destination(),
                        "date",
                        date));
        b.ask(
                InfoKind.CABIN,
                cabin.replace('_', ' ') + " on flight " + flight.flightNumber() + ", please.");
        b.ask(
                InfoKind.PASSENGERS,
                passengers.size() == 1
                        ? "Just me: " + describe(passengers) + "."
                        : "Two of us: " + describe(passengers) + ".");
        final int bags = rng.nextInt(3);
        final int nonfree =
                Math.max(
                        0,
                        bags
                                - AirlineDb.freeBagsPerPassenger(user.membership(), cabin)
                                        * passengers.size());
        b.ask(InfoKind.BAGGAGE, bags + " checked bags in total.");
        final String insurance = rng.nextBoolean() ? "yes" : "no";
        b.ask(
                InfoKind.INSURANCE,
                insurance.equals("yes") ? "Yes, please add insurance." : "No insurance, thanks.");
        final PaymentMethod card = user.paymentMethods().get(card(user));
        b.ask(InfoKind.PAYMENT, "Please charge " + card.describe() + ".");
        final int total =
                flight.dates().get(date).prices().get(cabin) * passengers.size()
                        + (insurance.equals("yes")
                                ? AirlineTools.INSURANCE_PER_PASSENGER * passengers.size()
                                : 0)
                        + AirlineTools.PRICE_PER_NONFREE_BAG * nonfree;
        b.say(
                "Please confirm (yes/no): book flight "
                        + flight.flightNumber()
                        + " on "
                        + date
                        + " from "
                        + flight.origin()
                        + " to "
                        + flight.destination()
                        + " in "
                        + cabin
                        + " for "
                        + describe(passengers)
                        + ", "
                        + bags
                        + " checked bags ("
                        + nonfree
                        + " non-free), insurance "
                        + insurance
                        + ", total $"
                        + total
                        + " charged to "
                        + card.id()
                        + ".");
        b.call(
                ToolCall.of(
                        "book_reservation",
                        "user_id",
                        user.userId(),
                        "origin",
                        flight.origin(),
                        "destination",
                        flight.destination(),
                        "flight_type",
                        "one_way",
                        "cabin",
                        cabin,
                        "flights",
                        List.of(Map.of("flight_number", flight.flightNumber(), "date", date)),
                        "passengers",
                        passengerArgs(passengers),
                        "payment_methods",
                        List.of(Map.of("payment_id", card.id(), "amount", total)),
                        "total_baggages",
                        bags,
                        "nonfree_baggages",
                        nonfree,
                        "insurance",
                        insurance));
        b.say(
                "Your flight is booked; the total of $"
                        + total
                        + " was charged to "
                        + card.id()
                        + ". Is there anything else I can help you with?");
        b.require("$" + total);
        return b.build("Hi, I'd like to book a flight.", "I just want to book a flight.", false);
    }

    private static Tau2Task cancel(final TaskBuilder b, final Reservation r) {
        b.ask(InfoKind.REASON, "My plans changed, so I don't need the trip anymore.");
        final int refund = r.paid();
        b.say(
                "Please confirm (yes/no): cancel reservation "
                        + r.reservationId()
                        + "; $"
                        + refund
                        + " will be refunded to the original payment methods.");
        b.call(ToolCall.of("cancel_reservation", "reservation_id", r.reservationId()));
        b.say(
                "Reservation "
                        + r.reservationId()
                        + " is cancelled and $"
                        + refund
                        + " will be refunded. Is there anything else I can help you with?");
        b.require("$" + refund);
        return b.build(
                "Hi, I need to cancel one of my reservations.",
                "I want to cancel my reservation.",
                false);
    }

    private static Tau2Task bags(
            final TaskBuilder b,
            final AirlineDb db,
            final SplittableRandom rng,
            final Reservation r) {
        final User user = db.users().get(r.userId());
        final int total = r.totalBaggages() + 1 + rng.nextInt(2);
        final int nonfree =
                Math.max(
                        0,
                        total
                                - AirlineDb.freeBagsPerPassenger(user.membership(), r.cabin())
                                        * r.passengers().size());
        final int cost = AirlineTools.PRICE_PER_NONFREE_BAG * (nonfree - r.nonfreeBaggages());
        b.ask(InfoKind.BAGGAGE, "I'd like " + total + " checked bags in total.");
        final PaymentMethod card = user.paymentMethods().get(card(user));
        b.ask(InfoKind.PAYMENT, "Please charge " + card.describe() + ".");
        b.say(
                "Please confirm (yes/no): set reservation "
                        + r.reservationId()
                        + " to "
                        + total
                        + " bags ("
                        + nonfree
                        + " non-free) for $"
                        + cost
                        + " charged to "
                        + card.id()
                        + ".");
        b.call(
                ToolCall.of(
                        "update_reservation_baggages",
                        "reservation_id",
                        r.reservationId(),
                        "total_baggages",
                        total,
                        "nonfree_baggages",
                        nonfree,
                        "payment_id",
                        card.id()));
        b.say(
                "Done: your reservation now has "
                        + total
                        + " checked bags and you were charged $"
                        + cost
                        + ". Is there anything else I can help you with?");
        b.require("$" + cost);
        return b.build(
                "Hi, I want to add checked bags to my reservation.",
                "I need more checked bags on my trip.",
                false);
    }

    private static Tau2Task passengers(
            final TaskBuilder b, final SplittableRandom rng, final Reservation r) {
        final Name name = Fakes.name(rng);
        final Passenger replacement =
                new Passenger(name.firstName(), name.lastName(), Fakes.dateOfBirth(rng));
        final List<Passenger> updated = new ArrayList<>(r.passengers());
        final Passenger old = updated.set(updated.size() - 1, replacement);
        b.ask(
                InfoKind.PASSENGERS,
                "Please replace "
                        + old.firstName()
                        + " "
                        + old.lastName()
                        + " with "
                        + describe(List.of(replacement))
                        + ".");
        b.say(
                "Please confirm (yes/no): the travellers of reservation "
                        + r.reservationId()
                        + " become "
                        + describe(updated)
                        + ".");
        b.call(
                ToolCall.of(
                        "update_reservation_passengers",
                        "reservation_id",
                        r.reservationId(),
                        "passengers",
                        passengerArgs(updated)));
        b.say("The travellers are updated. Is there anything else I can help you with?");
        return b.build(
                "Hi, I need to change a traveller on my reservation.",
                "I need to change who is travelling on my reservation.",
                false);
    }

    private static Tau2Task upgrade(final TaskBuilder b, final AirlineDb db, final Reservation r) {
        final User user = db.users().get(r.userId());
        b.ask(InfoKind.CABIN, "I'd like to upgrade to business, same flights.");
        final int diff =
                r.flights().stream()
                                .mapToInt(f -> dateOf(db, f).prices().get("business") - f.price())
                                .sum()
                        * r.passengers().size();
        final PaymentMethod card = user.paymentMethods().get(card(user));
        b.ask(InfoKind.PAYMENT, "Please use " + card.describe() + ".");
        final String money = (diff >= 0 ? "you pay $" : "you get back $") + Math.abs(diff);
        b.say(
                "Please confirm (yes/no): upgrade reservation "
                        + r.reservationId()
                        + " to business; "
                        + money
                        + " with "
                        + card.id()
                        + ".");
        b.call(
                ToolCall.of(
                        "update_reservation_flights",
                        "reservation_id",
                        r.reservationId(),
                        "cabin",
                        "business",
                        "flights",
                        flightArgs(r.flights()),
                        "payment_id",
                        card.id()));
        b.say(
                "Your reservation is now in business; "
                        + money
                        + ". Is there anything else I can help you with?");
        b.require("$" + Math.abs(diff));
        return b.build(
                "Hi, I'd like to upgrade the cabin of my reservation.",
                "I want to upgrade my cabin.",
                false);
    }

    private static Tau2Task status(
            final String id, final String kind, final AirlineDb db, final SplittableRandom rng) {
        final TaskBuilder b = new TaskBuilder(id, kind);
        final Flight flight = Fakes.pick(rng, List.copyOf(db.flights().values()));
        final String date = Fakes.pick(rng, DATES.subList(3, 9));
        final String status = flight.dates().get(date).status();
        b.ask(InfoKind.FLIGHT, "It's flight " + flight.flightNumber() + " on " + date + ".");
        b.call(
                ToolCall.of(
                        "get_flight_status", "flight_number", flight.flightNumber(), "date", date));
        b.say(
                "Flight "
                        + flight.flightNumber()
                        + " on "
                        + date
                        + " has the status '"
                        + status
                        + "'. Is there anything else I can help you with?");
        b.require("'" + status + "'");
        return b.build(
                "Hi, can you tell me the status of a flight?",
                "I only want to know the status of a flight.",
                false);
    }

    private static Tau2Task refuse(final TaskBuilder b) {
        b.say(
                "I'm sorry, but basic economy flights cannot be modified, so I can't move your"
                        + " reservation to other flights. Is there anything else I can help you"
                        + " with?");
        b.require("basic economy flights cannot be modified");
        return b.build(
                "Hi, I want to move my reservation to a later flight.",
                "I want to change the flights of my reservation.",
                false);
    }

    private static Tau2Task certificate(
            final TaskBuilder b, final AirlineDb db, final Reservation r) {
        final ReservationFlight flight = disrupted(db, r).orElseThrow();
        final String status = dateOf(db, flight).status();
        b.call(
                ToolCall.of(
                        "get_flight_status",
                        "flight_number",
                        flight.flightNumber(),
                        "date",
                        flight.date()));
        final int amount = (status.equals("cancelled") ? 100 : 50) * r.passengers().size();
        b.say(
                "Please confirm (yes/no): as a gesture for the "
                        + status
                        + " flight I will send you a certificate of $"
                        + amount
                        + ".");
        b.call(ToolCall.of("send_certificate", "user_id", r.userId(), "amount", amount));
        b.say(
                "A certificate of $"
                        + amount
                        + " has been added to your account. Is there anything else I can help you"
                        + " with?");
        b.require("$" + amount);
        return b.build(
                "Hi, my flight was disrupted and I'd like some compensation.",
                "I'd like compensation for my disrupted flight.",
                false);
    }

    private static Tau2Task transfer(
            final String id, final String kind, final AirlineDb db, final SplittableRandom rng) {
        final TaskBuilder b = new TaskBuilder(id, kind);
        final User user = Fakes.pick(rng, List.copyOf(db.users().values()));
        identify(b, user.userId());
        b.call(
                ToolCall.of(
                        "transfer_to_human_agents",
                        "summary",
                        "User "
                                + user.userId()
                                + " lost a checked bag and wants to file a claim."));
        b.say("I'm transferring you to a human agent now. Please hold on.");
        return b.build(
                "Hi, the airline lost my checked bag and I want to talk to a human agent about a"
                        + " claim.",
                "I really need a human agent for my lost bag.",
                true);
    }
}
