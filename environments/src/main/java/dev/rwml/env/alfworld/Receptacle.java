package dev.rwml.env.alfworld;

/** A numbered receptacle of a scene, e.g. {@code cabinet 4}. */
record Receptacle(String type, int number, int loc) {

    String name() {
        return type + " " + number;
    }

    boolean openable() {
        return Catalog.openable(type);
    }
}
