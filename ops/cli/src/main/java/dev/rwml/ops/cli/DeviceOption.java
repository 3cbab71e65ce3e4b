package dev.rwml.ops.cli;

import picocli.CommandLine.Option;

/** {@code --device cpu|gpu|auto} of the commands whose stage holds a world model. */
final class DeviceOption {

    @Option(
            names = "--device",
            paramLabel = "cpu|gpu|auto",
            description =
                    "Where the world model runs (model.device; default: auto, the first GPU when"
                            + " PyTorch sees one, else the CPU; gpu is refused when it sees none).")
    String device;
}
