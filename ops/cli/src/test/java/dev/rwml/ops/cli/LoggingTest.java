package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LoggingTest {

    @AfterEach
    void forget() {
        System.clearProperty(Logging.FILE_PROPERTY);
    }

    @Test
    void shouldLogEachCommandToAFileUnderItsDataDirectory() {
        Logging.chooseFile(new String[] {"reward", "--run", "r1", "--data-dir", "/srv/rwml"});
        assertThat(System.getProperty(Logging.FILE_PROPERTY))
                .isEqualTo(Path.of("/srv/rwml/logs/reward.log").toString());
    }

    @Test
    void shouldUseTheDemosDirectoryAndTheDefaultOtherwise() {
        Logging.chooseFile(new String[] {"--verbose", "demo", "--dir=/tmp/d", "--quick"});
        assertThat(System.getProperty(Logging.FILE_PROPERTY)).isEqualTo("/tmp/d/logs/demo.log");
        System.clearProperty(Logging.FILE_PROPERTY);

        Logging.chooseFile(new String[] {"status", "--run", "r1"});
        assertThat(System.getProperty(Logging.FILE_PROPERTY))
                .isEqualTo(Path.of(".rwml/logs/status.log").toAbsolutePath().toString());
    }
}
