package dev.rwml.env.alfworld;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The scripted expert: from the current state it picks the next action of a plan that finds the
 * task object, prepares it and puts it in place.
 *
 * <p>It knows only what the agent has seen (receptacles observed open or open-topped) and searches
 * unseen receptacles in order of how plausible they are for the wanted type, opening closed ones.
 * It recomputes its plan at every call, so it recovers when another policy (an epsilon agent)
 * moved, dropped or closed things in between.
 */
final class Expert {
    private final AlfworldEnvironment env;
    private final Map<String, List<String>> places = new HashMap<>();

    Expert(final AlfworldEnvironment env) {
        this.env = env;
        final Catalog.RoomSpec room = Catalog.room(env.game().layout().room());
        Stream.concat(room.objects().stream(), room.lamps().stream())
                .forEach(spec -> places.put(spec.type(), spec.places()));
    }

    String next() {
        final String held = env.holding();
        return held == null ? withEmptyHand() : withObject(held);
    }

    private String withEmptyHand() {
        final Goal goal = env.game().goal();
        final String keep =
                goal.type() == TaskType.PICK_TWO_OBJ_AND_PLACE ? pairReceptacle() : null;
        final Optional<String> known =
                env.game().placements().stream()
                        .map(Game.Placement::object)
                        .filter(o -> AlfworldEnvironment.typeOf(o).equals(goal.objType()))
                        .filter(o -> env.locationOf(o) != null)
                        .filter(o -> !env.locationOf(o).equals(keep))
                        .filter(o -> env.observed(env.locationOf(o)))
                        .min(
                                Comparator.comparing(
                                                (String o) -> !env.locationOf(o).equals(env.at()))
                                        .thenComparing(
                                                o -> rank(goal.objType(), env.locationOf(o))));
        if (known.isEmpty()) {
            return search(goal.objType());
        }
        final String where = env.locationOf(known.get());
        if (!where.equals(env.at())) {
            return "go to " + where;
        }
        return env.closed(where) ? "open " + where : "take " + known.get() + " from " + where;
    }

    private String withObject(final String held) {
        final Goal goal = env.game().goal();
        if (!AlfworldEnvironment.typeOf(held).equals(goal.objType())) {
            return putDown(held);
        }
        if (goal.type() == TaskType.LOOK_AT_OBJ_IN_LIGHT) {
            return toLamp(goal.lampType());
        }
        if (!env.hasGoalState(held)) {
            final Receptacle appliance = env.game().layout().ofType(goal.type().appliance()).get(0);
            if (!appliance.name().equals(env.at())) {
                return "go to " + appliance.name();
            }
            final String verb =
                    switch (goal.type()) {
                        case PICK_CLEAN_THEN_PLACE_IN_RECEP -> "clean ";
                        case PICK_HEAT_THEN_PLACE_IN_RECEP -> "heat ";
                        default -> "cool ";
                    };
            return verb + held + " with " + appliance.name();
        }
        final String target =
                goal.type() == TaskType.PICK_TWO_OBJ_AND_PLACE
                        ? pairReceptacle()
                        : goalReceptacle();
        if (!target.equals(env.at())) {
            return "go to " + target;
        }
        return env.closed(target) ? "open " + target : placeCommand(held);
    }

    private String toLamp(final String lampType) {
        final Optional<String> lamp =
                env.game().placements().stream()
                        .filter(p -> AlfworldEnvironment.typeOf(p.object()).equals(lampType))
                        .filter(p -> env.observed(p.receptacle()))
                        .map(Game.Placement::object)
                        .findFirst();
        if (lamp.isEmpty()) {
            return search(lampType);
        }
        final String where = env.locationOf(lamp.get());
        return where.equals(env.at()) ? "use " + lamp.get() : "go to " + where;
    }

    private String putDown(final String held) {
        if (env.at() == null) {
            final Receptacle surface =
                    env.game().layout().receptacles().stream()
                            .filter(r -> !r.openable())
                            .findFirst()
                            .orElseThrow();
            return "go to " + surface.name();
        }
        return env.closed(env.at()) ? "open " + env.at() : placeCommand(held);
    }

    private String placeCommand(final String held) {
        return env.admissibleActions().stream()
                .filter(
                        a ->
                                a.startsWith("move " + held + " to ")
                                        || a.startsWith("put " + held + " "))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("No place command for " + held));
    }

    /** The goal receptacle to use for single-object tasks: an open-topped one if there is one. */
    private String goalReceptacle() {
        final List<Receptacle> goals = env.game().layout().ofType(env.game().goal().recepType());
        return goals.stream()
                .filter(r -> !env.closed(r.name()))
                .findFirst()
                .orElse(goals.get(0))
                .name();
    }

    /** For two-object tasks: the goal receptacle already holding the most objects of the type. */
    private String pairReceptacle() {
        final Goal goal = env.game().goal();
        final List<Receptacle> goals = env.game().layout().ofType(goal.recepType());
        return goals.stream()
                .max(
                        Comparator.comparingInt(
                                        (Receptacle r) -> env.countOfType(r.name(), goal.objType()))
                                .thenComparing(r -> !env.closed(r.name()))
                                .thenComparing(r -> -r.number()))
                .orElseThrow()
                .name();
    }

    /** Goes to, or opens, the most plausible receptacle for {@code type} not yet seen inside. */
    private String search(final String type) {
        final Optional<Receptacle> next =
                env.game().layout().receptacles().stream()
                        .filter(r -> !env.observed(r.name()))
                        .min(
                                Comparator.comparingInt((Receptacle r) -> rank(type, r.name()))
                                        .thenComparingInt(Receptacle::number));
        if (next.isEmpty()) {
            // Objects only move through the agent's hands into receptacles it is looking into,
            // so a fully searched room still shows every object; this answer is only a safe,
            // admissible no-op should an environment change break that invariant.
            return "look";
        }
        final String name = next.get().name();
        return name.equals(env.at()) ? "open " + name : "go to " + name;
    }

    /** Position of a receptacle's type in the type's place list; goal receptacles come last. */
    private int rank(final String type, final String receptacle) {
        final String recepType = env.receptacle(receptacle).type();
        final List<String> likely = places.getOrDefault(type, List.of());
        if (recepType.equals(env.game().goal().recepType())) {
            return likely.size() + 1;
        }
        final int index = likely.indexOf(recepType);
        return index < 0 ? likely.size() : index;
    }
}
