package dev.adaptive.examples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs a main method with System.out captured; tests of one class run one at a time. */
final class Console {

    interface Main {
        void run() throws Exception;
    }

    private Console() {
    }

    static synchronized String capture(Main main) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            main.run();
        } finally {
            System.setOut(original);
        }
        String out = bytes.toString(StandardCharsets.UTF_8);
        original.print(out);
        return out;
    }
}
