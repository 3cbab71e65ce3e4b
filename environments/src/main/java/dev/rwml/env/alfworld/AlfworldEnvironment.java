package dev.rwml.env.alfworld;

import dev.rwml.env.Environment;
import dev.rwml.env.StableMaps;
import dev.rwml.events.NextStateKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.random.RandomGenerator;

/**
 * One ALFWorld game being played: a household room in which the agent moves between numbered
 * receptacles, carries one object at a time and answers with the real game's feedback texts.
 *
 * <p>Every action that is not in {@link #admissibleActions()} returns exactly {@value #NOTHING},
 * changes nothing and still counts toward the step cap. Create games with {@link AlfworldGames}.
 */
public final class AlfworldEnvironment implements Environment {

    /** The environment name recorded on transitions. */
    public static final String NAME = "alfworld";

    /** The version of this environment's behaviour, recorded on transitions. */
    public static final String VERSION = "1";

    /** The default step cap per episode. */
    public static final int DEFAULT_STEP_CAP = 50;

    /** The feedback of every action that is not admissible. */
    public static final String NOTHING = "Nothing happens.";

    private static final String WELCOME = "-= Welcome to TextWorld, ALFRED! =-";

    private final Game game;
    private final Split split;
    private final Grammar grammar;
    private final int stepCap;
    private final Map<String, Receptacle> receptacles = new LinkedHashMap<>();
    private final Map<String, List<String>> contents = new HashMap<>();
    private final Map<String, String> location = new HashMap<>();
    private final Set<String> open = new HashSet<>();
    private final Set<String> lampsOn = new HashSet<>();
    private final Set<String> clean = new HashSet<>();
    private final Set<String> hot = new HashSet<>();
    private final Set<String> cool = new HashSet<>();
    private final Set<String> observed = new HashSet<>();
    private final Expert expert;
    private String at;
    private String holding;
    private int steps;
    private boolean goalReached;
    private String observation;
    private List<String> admissible;

    AlfworldEnvironment(
            final Game game, final Split split, final Grammar grammar, final int stepCap) {
        if (stepCap < 1) {
            throw new IllegalArgumentException("stepCap must be at least 1, got " + stepCap);
        }
        this.game = game;
        this.split = split;
        this.grammar = grammar;
        this.stepCap = stepCap;
        for (final Receptacle r : game.layout().receptacles()) {
            receptacles.put(r.name(), r);
            contents.put(r.name(), new ArrayList<>());
        }
        for (final Game.Placement p : game.placements()) {
            contents.get(p.receptacle()).add(p.object());
            location.put(p.object(), p.receptacle());
        }
        this.observation =
                WELCOME + "\n\n" + middleOfRoom() + "\n\nYour task is to: " + game.goal().text();
        this.admissible = computeAdmissible();
        this.expert = new Expert(this);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String task() {
        return game.goal().text();
    }

    @Override
    public String observation() {
        return observation;
    }

    @Override
    public List<String> admissibleActions() {
        return admissible;
    }

    @Override
    public Optional<String> expertAction() {
        return done() ? Optional.empty() : Optional.of(expert.next());
    }

    @Override
    public boolean done() {
        return goalReached || steps >= stepCap;
    }

    @Override
    public Map<String, String> metadata() {
        final Map<String, String> meta = new LinkedHashMap<>();
        meta.put("taskType", game.goal().type().id());
        meta.put("grammar", grammar.name().toLowerCase(Locale.ROOT));
        meta.put("split", split.id());
        meta.put("roomType", game.layout().room().id());
        meta.put("layoutId", Integer.toString(game.layout().id()));
        meta.put("gameVariant", Long.toString(game.variant()));
        return StableMaps.ordered(meta);
    }

    /** The task type of this game. */
    public TaskType taskType() {
        return game.goal().type();
    }

    /** The id of the layout (room) this game is played in; unseen layouts have their own ids. */
    public int layoutId() {
        return game.layout().id();
    }

    /** The steps taken so far, invalid ones included. */
    public int steps() {
        return steps;
    }

    @Override
    public Step step(final String action) {
        if (done()) {
            return new Step(NOTHING, NextStateKind.TEXT, 0.0, true, false);
        }
        steps++;
        final String command = action == null ? "" : action.trim();
        final boolean valid = admissible.contains(command);
        final String feedback = valid ? apply(command) : NOTHING;
        observation = feedback;
        double reward = 0.0;
        if (valid) {
            admissible = computeAdmissible();
            if (goalHolds()) {
                goalReached = true;
                reward = 1.0;
            }
        }
        return new Step(feedback, NextStateKind.TEXT, reward, done(), valid);
    }

    /**
     * A text rendering of the whole world state (agent, hand, every receptacle and object), for
     * checking that an action changed nothing.
     */
    public String stateDigest() {
        final StringBuilder out = new StringBuilder();
        out.append("at=").append(at).append(" holding=").append(holding).append('\n');
        for (final String r : receptacles.keySet()) {
            out.append(r)
                    .append(open.contains(r) ? " open" : "")
                    .append(": ")
                    .append(contents.get(r))
                    .append('\n');
        }
        out.append("lampsOn=").append(new TreeSet<>(lampsOn));
        out.append(" clean=").append(new TreeSet<>(clean));
        out.append(" hot=").append(new TreeSet<>(hot));
        out.append(" cool=").append(new TreeSet<>(cool));
        return out.toString();
    }

    private String apply(final String command) {
        if (command.equals("inventory")) {
            return holding == null
                    ? "You are not carrying anything."
                    : "You are carrying: a " + holding + ".";
        }
        if (command.equals("look")) {
            if (at == null) {
                return middleOfRoom();
            }
            final String neighbour = game.layout().neighbours().get(at);
            return "You are facing the "
                    + at
                    + (neighbour == null ? "" : ", and " + neighbour)
                    + ". Next to it, you see nothing.";
        }
        if (command.startsWith("go to ")) {
            at = command.substring("go to ".length());
            see(at);
            final String place = grammar == Grammar.OLDER ? "loc " + receptacles.get(at).loc() : at;
            return "You arrive at " + place + ". " + describe(at);
        }
        if (command.startsWith("open ")) {
            open.add(at);
            observed.add(at);
            return "You open the " + at + ". " + describe(at);
        }
        if (command.startsWith("close ")) {
            open.remove(at);
            return "You close the " + at + ".";
        }
        if (command.startsWith("take ")) {
            final String object = between(command, "take ", " from ");
            contents.get(at).remove(object);
            location.remove(object);
            holding = object;
            return "You pick up the " + object + " from the " + at + ".";
        }
        if (command.startsWith("move ") || command.startsWith("put ")) {
            final String object = holding;
            contents.get(at).add(object);
            location.put(object, at);
            holding = null;
            return grammar == Grammar.OLDER
                    ? "You put the " + object + " in/on the " + at + "."
                    : "You move the " + object + " to the " + at + ".";
        }
        if (command.startsWith("clean ")) {
            clean.add(holding);
            return "You clean the " + holding + " using the " + at + ".";
        }
        if (command.startsWith("heat ")) {
            hot.add(holding);
            cool.remove(holding);
            return "You heat the " + holding + " using the " + at + ".";
        }
        if (command.startsWith("cool ")) {
            cool.add(holding);
            hot.remove(holding);
            return "You cool the " + holding + " using the " + at + ".";
        }
        if (command.startsWith("use ")) {
            final String lamp = command.substring("use ".length());
            lampsOn.add(lamp);
            return "You turn on the " + lamp + ".";
        }
        if (command.startsWith("examine ")) {
            final String target = command.substring("examine ".length());
            if (receptacles.containsKey(target)) {
                see(target);
                return describe(target);
            }
            return examineObject(target);
        }
        throw new IllegalStateException("Admissible command without an effect: " + command);
    }

    private String examineObject(final String object) {
        final List<String> states = new ArrayList<>();
        if (hot.contains(object)) {
            states.add("hot");
        }
        if (cool.contains(object)) {
            states.add("cool");
        }
        if (clean.contains(object)) {
            states.add("clean");
        }
        return states.isEmpty()
                ? "There's nothing special about " + object + "."
                : "This is a " + String.join(" and ", states) + " " + object + ".";
    }

    /**
     * A command of this game's grammar over its own objects and receptacles that is not admissible
     * now: taking from or moving to a receptacle the agent is not at, opening what is open or
     * elsewhere, heating with a sink, using what is not a lamp here.
     */
    @Override
    public String inadmissibleAction(final RandomGenerator rng) {
        final List<String> objects = new ArrayList<>(new TreeSet<>(location.keySet()));
        if (holding != null && !objects.contains(holding)) {
            objects.add(holding);
        }
        final List<String> places = new ArrayList<>(receptacles.keySet());
        for (int attempt = 0; attempt < 32; attempt++) {
            final String o = objects.isEmpty() ? "it" : objects.get(rng.nextInt(objects.size()));
            final String r = places.get(rng.nextInt(places.size()));
            final String command =
                    switch (rng.nextInt(8)) {
                        case 0, 1 -> "take " + o + " from " + r;
                        case 2 ->
                                grammar == Grammar.OLDER
                                        ? "put " + o + " in/on " + r
                                        : "move " + o + " to " + r;
                        case 3 -> "open " + r;
                        case 4 -> "close " + r;
                        case 5 -> "heat " + o + " with " + r;
                        case 6 -> "cool " + o + " with " + r;
                        default -> "use " + o;
                    };
            if (!admissible.contains(command)) {
                return command;
            }
        }
        // every draw was admissible (a tiny room): going where the agent already is never is
        return at != null ? "go to " + at : "take it from " + places.get(0);
    }

    private List<String> computeAdmissible() {
        final TreeSet<String> out = new TreeSet<>();
        out.add("inventory");
        out.add("look");
        for (final String r : receptacles.keySet()) {
            if (!r.equals(at)) {
                out.add("go to " + r);
            }
        }
        if (holding != null) {
            out.add("examine " + holding);
        }
        if (at != null) {
            final Receptacle here = receptacles.get(at);
            out.add("examine " + at);
            if (here.openable()) {
                out.add((open.contains(at) ? "close " : "open ") + at);
            }
            if (!closed(at)) {
                for (final String object : contents.get(at)) {
                    out.add("examine " + object);
                    if (isLamp(object)) {
                        out.add("use " + object);
                    } else if (holding == null) {
                        out.add("take " + object + " from " + at);
                    }
                }
            }
            if (holding != null) {
                if (!closed(at)) {
                    out.add(
                            grammar == Grammar.OLDER
                                    ? "put " + holding + " in/on " + at
                                    : "move " + holding + " to " + at);
                }
                switch (here.type()) {
                    case "sinkbasin" -> out.add("clean " + holding + " with " + at);
                    case "microwave" -> out.add("heat " + holding + " with " + at);
                    case "fridge" -> out.add("cool " + holding + " with " + at);
                    default -> {}
                }
            }
        }
        return List.copyOf(out);
    }

    private boolean goalHolds() {
        final Goal goal = game.goal();
        return switch (goal.type()) {
            case LOOK_AT_OBJ_IN_LIGHT ->
                    holding != null
                            && typeOf(holding).equals(goal.objType())
                            && at != null
                            && !closed(at)
                            && contents.get(at).stream()
                                    .anyMatch(
                                            o ->
                                                    typeOf(o).equals(goal.lampType())
                                                            && lampsOn.contains(o));
            case PICK_TWO_OBJ_AND_PLACE ->
                    receptacles.values().stream()
                            .filter(r -> r.type().equals(goal.recepType()))
                            .anyMatch(r -> countOfType(r.name(), goal.objType()) >= 2);
            default ->
                    location.entrySet().stream()
                            .anyMatch(
                                    e ->
                                            typeOf(e.getKey()).equals(goal.objType())
                                                    && receptacles
                                                            .get(e.getValue())
                                                            .type()
                                                            .equals(goal.recepType())
                                                    && hasGoalState(e.getKey()));
        };
    }

    /** True if the object has the state its task asks for (clean, hot, cool or none). */
    boolean hasGoalState(final String object) {
        return switch (game.goal().type()) {
            case PICK_CLEAN_THEN_PLACE_IN_RECEP -> clean.contains(object);
            case PICK_HEAT_THEN_PLACE_IN_RECEP -> hot.contains(object);
            case PICK_COOL_THEN_PLACE_IN_RECEP -> cool.contains(object);
            default -> true;
        };
    }

    private String middleOfRoom() {
        final List<String> names = new ArrayList<>(receptacles.keySet());
        return "You are in the middle of a room. Looking quickly around you, you see "
                + list(names)
                + ".";
    }

    private String describe(final String r) {
        if (receptacles.get(r).openable()) {
            return open.contains(r)
                    ? "The " + r + " is open. In it, you see " + list(contents.get(r)) + "."
                    : "The " + r + " is closed.";
        }
        return "On the " + r + ", you see " + list(contents.get(r)) + ".";
    }

    private void see(final String r) {
        if (!closed(r)) {
            observed.add(r);
        }
    }

    /**
     * "nothing", "a x 1", or "a x 1, a y 2, and a z 1": TextWorld's list, serial comma included.
     */
    static String list(final List<String> items) {
        if (items.isEmpty()) {
            return "nothing";
        }
        if (items.size() == 1) {
            return "a " + items.get(0);
        }
        final StringBuilder out = new StringBuilder();
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                out.append(i == items.size() - 1 ? ", and " : ", ");
            }
            out.append("a ").append(items.get(i));
        }
        return out.toString();
    }

    private static String between(final String text, final String start, final String end) {
        return text.substring(start.length(), text.indexOf(end));
    }

    // Package-private views for the expert.

    Game game() {
        return game;
    }

    String at() {
        return at;
    }

    String holding() {
        return holding;
    }

    Receptacle receptacle(final String name) {
        return receptacles.get(name);
    }

    List<String> contentsOf(final String receptacle) {
        return contents.get(receptacle);
    }

    String locationOf(final String object) {
        return location.get(object);
    }

    boolean closed(final String receptacle) {
        return receptacles.get(receptacle).openable() && !open.contains(receptacle);
    }

    boolean observed(final String receptacle) {
        return observed.contains(receptacle);
    }

    boolean lampOn(final String lamp) {
        return lampsOn.contains(lamp);
    }

    int countOfType(final String receptacle, final String objType) {
        return (int)
                contents.get(receptacle).stream().filter(o -> typeOf(o).equals(objType)).count();
    }

    static String typeOf(final String object) {
        return object.substring(0, object.lastIndexOf(' '));
    }

    static boolean isLamp(final String object) {
        final String type = typeOf(object);
        return type.equals("desklamp") || type.equals("floorlamp");
    }
}
