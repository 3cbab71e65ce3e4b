package dev.rwml.env.tau2.airline;

import static dev.rwml.env.tau2.airline.AirlineDbGenerator.DATES;
import static dev.rwml.env.tau2.airline.AirlineDbGenerator.TODAY;

import dev.rwml.env.tau2.Fakes;
import dev.rwml.env.tau2.InfoKind;
import dev.rwml.env.tau2.Name;
import dev.rwml.env.tau2.TaskBuilder;
import dev.rwml.env.tau2.TaskKinds;
import dev.rwml.env.tau2.Tau2Task;
import dev.rwml.env.tau2.ToolCall;
import dev.rwml.env.tau2.airline.AirlineDb.Flight;
import dev.rwml.env.tau2.airline.AirlineDb.FlightDate;
import dev.rwml.env.tau2.airline.AirlineDb.Passenger;
import dev.rwml.env.tau2.airline.AirlineDb.PaymentMethod;
import dev.rwml.env.tau2.airline.AirlineDb.Reservation;
import dev.rwml.env.tau2.airline.AirlineDb.ReservationFlight;
import dev.rwml.env.tau2.airline.AirlineDb.User;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** Generates airline tasks, each with its gold plan, from a generated database. */
public final class AirlineTasks {

    private static final String ANYTHING_ELSE = "Is there anything else I can help you with?";

    /** The airline task kinds, in the order the generator tries them, each with its generator. */
    public enum TaskKind {
        BOOK_RESERVATION(AirlineTasks::book),
        CANCEL_RESERVATION(
                (id, kind, db, rng) ->
                        pick(db, rng, r -> active(r) && notDeparted(db, r) && cancellable(db, r))
                                .map(r -> cancel(lookedUp(id, kind, r), r))),
        UPDATE_RESERVATION_BAGGAGES(
                (id, kind, db, rng) ->
                        pick(db, rng, AirlineTasks::active)
                                .map(r -> bags(lookedUp(id, kind, r), db, rng, r))),
        UPDATE_RESERVATION_PASSENGERS(
                (id, kind, db, rng) ->
                        pick(db, rng, AirlineTasks::active)
                                .map(r -> passengers(lookedUp(id, kind, r), rng, r))),
        UPGRADE_CABIN(
                (id, kind, db, rng) ->
                        pick(db, rng, r -> upgradable(db, r))
                                .map(r -> upgrade(lookedUp(id, kind, r), db, r))),
        FLIGHT_STATUS((id, kind, db, rng) -> Optional.of(status(id, kind, db, rng))),
        REFUSE_BASIC_ECONOMY_CHANGE(
                (id, kind, db, rng) ->
                        pick(db, rng, r -> basicEconomyAhead(db, r))
                                .map(r -> refuse(lookedUp(id, kind, r)))),
        SEND_CERTIFICATE(
                (id, kind, db, rng) ->
                        pick(db, rng, r -> active(r) && disrupted(db, r).isPresent())
                                .map(r -> certificate(lookedUp(id, kind, r), db, r))),
        TRANSFER_TO_HUMAN_AGENTS((id, kind, db, rng) -> Optional.of(transfer(id, kind, db, rng)));

        private final TaskKinds.Generator<AirlineDb> generator;

        TaskKind(final TaskKinds.Generator<AirlineDb> generator) {
            this.generator = generator;
        }

        /** The kind as tasks record it, e.g. {@code book_reservation}. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** A task of this kind, or empty when nothing in the database fits it. */
        public Optional<Tau2Task> task(
                final String taskId, final AirlineDb db, final SplittableRandom rng) {
            return generator.task(taskId, id(), db, rng);
        }
    }

    private AirlineTasks() {}

    /** A task of a kind that this database supports, chosen at random. */
    public static Tau2Task task(final String id, final AirlineDb db, final SplittableRandom rng) {
        return TaskKinds.firstFitting(
                id, List.of(TaskKind.values()), rng, kind -> kind.task(id, db, rng));
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

    private static boolean upgradable(final AirlineDb db, final Reservation r) {
        return active(r) && !r.cabin().equals("business") && bookable(db, r, "business");
    }

    private static boolean basicEconomyAhead(final AirlineDb db, final Reservation r) {
        return active(r) && r.cabin().equals("basic_economy") && notDeparted(db, r);
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
                .map(p -> "%s %s (born %s)".formatted(p.firstName(), p.lastName(), p.dob()))
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
            final TaskBuilder b = new TaskBuilder(id, kind);
            return Optional.of(bookTask(b, user, flight, date, cabin, passengers, rng));
        }
        return Optional.empty();
    }

    private static Tau2Task bookTask(
            final TaskBuilder b,
            final User user,
            final Flight flight,
            final String date,
            final String cabin,
            final List<Passenger> passengers,
            final SplittableRandom rng) {
        identify(b, user.userId());
        b.ask(
                InfoKind.TRIP,
                "I want a one way trip from %s to %s on %s."
                        .formatted(flight.origin(), flight.destination(), date));
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
                "%s on flight %s, please."
                        .formatted(cabin.replace('_', ' '), flight.flightNumber()));
        b.ask(
                InfoKind.PASSENGERS,
                (passengers.size() == 1 ? "Just me: %s." : "Two of us: %s.")
                        .formatted(describe(passengers)));
        final int bags = rng.nextInt(3);
        final int nonfree =
                AirlineDb.nonfreeBags(user.membership(), cabin, passengers.size(), bags);
        b.ask(InfoKind.BAGGAGE, bags + " checked bags in total.");
        final String insurance = rng.nextBoolean() ? "yes" : "no";
        b.ask(
                InfoKind.INSURANCE,
                insurance.equals("yes") ? "Yes, please add insurance." : "No insurance, thanks.");
        final PaymentMethod card = user.creditCard();
        b.ask(InfoKind.PAYMENT, "Please charge " + card.describe() + ".");
        final int total =
                flight.dates().get(date).prices().get(cabin) * passengers.size()
                        + (insurance.equals("yes")
                                ? AirlineTools.INSURANCE_PER_PASSENGER * passengers.size()
                                : 0)
                        + AirlineTools.PRICE_PER_NONFREE_BAG * nonfree;
        b.say(
                """
                Please confirm (yes/no): book flight %s on %s from %s to %s in %s for %s, \
                %s checked bags (%s non-free), insurance %s, total $%s charged to %s."""
                        .formatted(
                                flight.flightNumber(),
                                date,
                                flight.origin(),
                                flight.destination(),
                                cabin,
                                describe(passengers),
                                bags,
                                nonfree,
                                insurance,
                                total,
                                card.id()));
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
                "Your flight is booked; the total of $%s was charged to %s. %s"
                        .formatted(total, card.id(), ANYTHING_ELSE));
        b.require("$" + total);
        return b.build("Hi, I'd like to book a flight.", "I just want to book a flight.", false);
    }

    private static Tau2Task cancel(final TaskBuilder b, final Reservation r) {
        b.ask(InfoKind.REASON, "My plans changed, so I don't need the trip anymore.");
        final int refund = r.paid();
        b.say(
                """
                Please confirm (yes/no): cancel reservation %s; $%s will be refunded to the \
                original payment methods."""
                        .formatted(r.reservationId(), refund));
        b.call(ToolCall.of("cancel_reservation", "reservation_id", r.reservationId()));
        b.say(
                "Reservation %s is cancelled and $%s will be refunded. %s"
                        .formatted(r.reservationId(), refund, ANYTHING_ELSE));
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
                AirlineDb.nonfreeBags(user.membership(), r.cabin(), r.passengers().size(), total);
        final int cost = AirlineTools.PRICE_PER_NONFREE_BAG * (nonfree - r.nonfreeBaggages());
        b.ask(InfoKind.BAGGAGE, "I'd like " + total + " checked bags in total.");
        final PaymentMethod card = user.creditCard();
        b.ask(InfoKind.PAYMENT, "Please charge " + card.describe() + ".");
        b.say(
                """
                Please confirm (yes/no): set reservation %s to %s bags (%s non-free) for $%s \
                charged to %s."""
                        .formatted(r.reservationId(), total, nonfree, cost, card.id()));
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
                "Done: your reservation now has %s checked bags and you were charged $%s. %s"
                        .formatted(total, cost, ANYTHING_ELSE));
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
                "Please replace %s %s with %s."
                        .formatted(
                                old.firstName(), old.lastName(), describe(List.of(replacement))));
        b.say(
                "Please confirm (yes/no): the travellers of reservation %s become %s."
                        .formatted(r.reservationId(), describe(updated)));
        b.call(
                ToolCall.of(
                        "update_reservation_passengers",
                        "reservation_id",
                        r.reservationId(),
                        "passengers",
                        passengerArgs(updated)));
        b.say("The travellers are updated. " + ANYTHING_ELSE);
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
        final PaymentMethod card = user.creditCard();
        b.ask(InfoKind.PAYMENT, "Please use " + card.describe() + ".");
        final String money = (diff >= 0 ? "you pay $" : "you get back $") + Math.abs(diff);
        b.say(
                "Please confirm (yes/no): upgrade reservation %s to business; %s with %s."
                        .formatted(r.reservationId(), money, card.id()));
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
        b.say("Your reservation is now in business; %s. %s".formatted(money, ANYTHING_ELSE));
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
        b.ask(InfoKind.FLIGHT, "It's flight %s on %s.".formatted(flight.flightNumber(), date));
        b.call(
                ToolCall.of(
                        "get_flight_status", "flight_number", flight.flightNumber(), "date", date));
        b.say(
                "Flight %s on %s has the status '%s'. %s"
                        .formatted(flight.flightNumber(), date, status, ANYTHING_ELSE));
        b.require("'" + status + "'");
        return b.build(
                "Hi, can you tell me the status of a flight?",
                "I only want to know the status of a flight.",
                false);
    }

    private static Tau2Task refuse(final TaskBuilder b) {
        b.say(
                """
                I'm sorry, but basic economy flights cannot be modified, so I can't move your \
                reservation to other flights. %s"""
                        .formatted(ANYTHING_ELSE));
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
                """
                Please confirm (yes/no): as a gesture for the %s flight I will send you a \
                certificate of $%s."""
                        .formatted(status, amount));
        b.call(ToolCall.of("send_certificate", "user_id", r.userId(), "amount", amount));
        b.say(
                "A certificate of $%s has been added to your account. %s"
                        .formatted(amount, ANYTHING_ELSE));
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
                        "User %s lost a checked bag and wants to file a claim."
                                .formatted(user.userId())));
        b.say("I'm transferring you to a human agent now. Please hold on.");
        return b.build(
                """
                Hi, the airline lost my checked bag and I want to talk to a human agent about a \
                claim.""",
                "I really need a human agent for my lost bag.",
                true);
    }
}
