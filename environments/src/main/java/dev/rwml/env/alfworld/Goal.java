package dev.rwml.env.alfworld;

/**
 * What a game asks for.
 *
 * @param recepType the goal receptacle type, null for {@link TaskType#LOOK_AT_OBJ_IN_LIGHT}
 * @param lampType the lamp type, only for {@link TaskType#LOOK_AT_OBJ_IN_LIGHT}
 * @param phrasing which of the type's two phrasings the task text uses (0 or 1)
 */
record Goal(TaskType type, String objType, String recepType, String lampType, int phrasing) {

    String text() {
        return type.phrase(phrasing, objType, recepType, lampType);
    }
}
