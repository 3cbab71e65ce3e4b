package dev.rwml.env.tau2.airline;

import dev.rwml.env.tau2.Fakes;
import dev.rwml.env.tau2.Name;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

/** Generates airline databases (airports, flights, users and their reservations) from a seed. */
public final class AirlineDbGenerator {

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

    /** The sixteen days that have flights, 2024-05-10 to 2024-05-25. */
    static final List<String> DATES = dates();

    /** The day of {@link AirlineDb#NOW}. */
    static final String TODAY = AirlineDb.NOW.substring(0, 10);

    private static final int ROUTE_PAIRS = 12;
    private static final int USERS = 10;

    private AirlineDbGenerator() {}

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
                            Fakes.email(rng, name),
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
                Fakes.unique(ids, () -> "HAT" + Fakes.digits(rng, 3)),
                from.iata(),
                to.iata(),
                String.format("%02d:00:00", departure),
                String.format("%02d:%02d:00", arrival, 30 * rng.nextInt(2)),
                dates);
    }

    private static Map<String, PaymentMethod> paymentMethods(
            final SplittableRandom rng, final Set<String> ids) {
        final Map<String, PaymentMethod> methods = new TreeMap<>();
        final String card = unique(rng, ids, "credit_card_");
        methods.put(card, PaymentMethod.creditCard(card, Fakes.creditCard(rng)));
        if (rng.nextBoolean()) {
            final String gift = unique(rng, ids, "gift_card_");
            methods.put(gift, new PaymentMethod("gift_card", gift, null, null, rng.nextInt(300)));
        }
        if (rng.nextInt(3) == 0) {
            final String cert = unique(rng, ids, "certificate_");
            methods.put(
                    cert,
                    new PaymentMethod("certificate", cert, null, null, 100 + 50 * rng.nextInt(9)));
        }
        return methods;
    }

    /** A payment-method id: the prefix and seven digits, unique in the database. */
    private static String unique(
            final SplittableRandom rng, final Set<String> ids, final String prefix) {
        return Fakes.unique(ids, () -> prefix + Fakes.digits(rng, 7));
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
                AirlineDb.nonfreeBags(user.membership(), cabin, passengers.size(), total);
        final String insurance = rng.nextInt(3) == 0 ? "yes" : "no";
        final int price =
                flights.stream().mapToInt(ReservationFlight::price).sum() * passengers.size()
                        + (insurance.equals("yes") ? 30 * passengers.size() : 0)
                        + 50 * nonfree;
        final String card = user.creditCard().id();
        final String createdAt =
                rng.nextInt(4) == 0
                        ? String.format(
                                "2024-05-14T%02d:%02d:00", 16 + rng.nextInt(8), rng.nextInt(60))
                        : String.format(
                                "2024-05-0%dT%02d:00:00", 1 + rng.nextInt(9), rng.nextInt(24));
        return new Reservation(
                Fakes.unique(ids, () -> Fakes.code(rng, 6)),
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
}
