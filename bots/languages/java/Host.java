// Card Arena's Java bot host (protocol version 1), compiled together with the bot's file.
//
// A Java bot is one .java file with a public class that has a public no-argument
// constructor and the game's methods in camelCase (draft_pick -> draftPick), each taking the
// call's arguments as types Gson converts to (int, String, List<String>, JsonObject...) and
// returning one (void for a notice). A game may give its bots classes of its own (Last Card:
// the original kit's CardGameStrategy, GameState, Move...) and an adapter, card_arena.Adapter,
// that turns such a bot into one with the contract's methods. The platform compiles the file
// with javac, with those classes and Gson (Debian's), and this host answers the JSON-lines
// protocol on stdin/stdout like the other hosts (docs/bot-protocol.md):
//
// - every match gets a new instance of the bot's class; static fields last while the process
//   does (this host cannot start a bot afresh in place: the controller starts a new process
//   before a deal the process has played);
// - whatever the bot prints, to System.out included, goes to stderr (its owner's log);
// - an exception out of the bot's code is its fault in the match, named by its class and
//   message, and where in the bot's file it was thrown: "(MyBot.java, line 25)".
package card_arena;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

public final class Host {
    private static final int PROTOCOL = 1;
    private static final Gson GSON = new Gson();

    private final PrintStream out;
    private final Class<?> botClass;
    private final Map<String, Method> methods = new TreeMap<>();
    private Object bot;
    private JsonObject failed;

    private Host(PrintStream out, Class<?> botClass) {
        this.out = out;
        this.botClass = botClass;
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);  // what the bot prints goes to its log, never the protocol
        int file = 0;  // the bot file's argument
        if (args.length > 1 && args[0].equals("--seal")) {  // in the sandbox (seal.c)
            try {
                seal(args[1]);
            } catch (Throwable error) {
                fatal(out, "the sandbox could not seal the bot's JVM (the platform's trouble): " + describe(error));
                System.exit(1);
                return;
            }
            file = 2;
        }
        if (args.length > file) {  // the bot's file, as the sandbox names it: /bot/NAME.java
            givenFile = java.nio.file.Path.of(args[file]).getFileName().toString();
        }
        Class<?> botClass;
        try {
            loadedName = botClassName();
            botClass = Class.forName(loadedName);
        } catch (Throwable error) {
            fatal(out, BotClass.NOT_PUBLIC.isEmpty() ? "failed at load: " + describe(error) : BotClass.NOT_PUBLIC);
            System.exit(1);
            return;
        }
        Host host = new Host(out, botClass);
        Object first;
        try {
            first = host.make();
        } catch (Throwable error) {
            error = unwrap(error);
            error.printStackTrace();
            boolean hidden = error instanceof IllegalAccessException && !BotClass.NOT_PUBLIC.isEmpty();
            fatal(out, hidden ? BotClass.NOT_PUBLIC : "failed at load: " + describe(error));
            System.exit(1);
            return;
        }
        host.learn(first.getClass());
        host.serve();
        System.exit(0);
    }

    // Seals the JVM before the bot's class loads: the library at `path` (seal.c) refuses
    // making pipes and sockets to every thread of the process from then on. Each numbers its
    // inode from one counter of the machine's, which a process could move for the next one to
    // read. The JVM's file channels make a socket pair of their own as they load, so they load
    // first (a read of the library itself).
    private static void seal(String path) throws java.io.IOException {
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(java.nio.file.Path.of(path))) {
            channel.size();
        }
        System.load(path);
    }

    // The bot's class: the one its file declares, or the one JarImport found in its jar.
    private static String botClassName() throws java.io.IOException {
        if (!BotClass.NAME.isEmpty()) {
            return BotClass.NAME;
        }
        try (java.io.InputStream found = Host.class.getResourceAsStream("/card_arena/bot-class")) {
            return new String(found.readAllBytes(), StandardCharsets.UTF_8).strip();
        }
    }

    private static void fatal(PrintStream out, String error) {
        JsonObject message = new JsonObject();
        message.addProperty("type", "fatal");
        message.addProperty("error", error);
        out.println(message);
        out.flush();
    }

    // A new bot: the bot's class made anew, through the game's adapter when it has one.
    private Object make() throws Exception {
        Object made = botClass.getDeclaredConstructor().newInstance();
        try {
            Class<?> adapter = Class.forName("card_arena.Adapter");
            return adapter.getMethod("wrap", Object.class).invoke(null, made);
        } catch (ClassNotFoundException none) {
            return made;
        }
    }

    // The bot's public methods, by the protocol's names (draftPick -> draft_pick); one that
    // begins with a capital (Act) is no contract's method, and is listed as it is written, so
    // that the arena's refusal of a bot missing "act" names what its file defines.
    private void learn(Class<?> type) {
        for (Method method : type.getMethods()) {
            if (method.getDeclaringClass() == Object.class || Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            method.setAccessible(true);
            String name = method.getName();
            methods.putIfAbsent(Character.isUpperCase(name.charAt(0)) ? name : snake(name), method);
        }
    }

    private static String snake(String name) {
        StringBuilder text = new StringBuilder();
        for (char c : name.toCharArray()) {
            if (Character.isUpperCase(c)) {
                text.append('_').append(Character.toLowerCase(c));
            } else {
                text.append(c);
            }
        }
        return text.toString();
    }

    private void serve() throws Exception {
        JsonObject hello = new JsonObject();
        hello.addProperty("type", "hello");
        hello.addProperty("protocol", PROTOCOL);
        hello.addProperty("language", "java");
        hello.addProperty("name", name());
        hello.add("methods", GSON.toJsonTree(methods.keySet()));
        hello.addProperty("runtime", "java " + System.getProperty("java.version"));
        hello.addProperty("quiet_begin", true);
        send(hello);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) continue;
            JsonObject message = JsonParser.parseString(line).getAsJsonObject();
            String type = message.has("type") ? message.get("type").getAsString() : "";
            JsonElement id = message.has("id") ? message.get("id") : JsonNull.INSTANCE;
            if (type.equals("quit")) return;
            if (type.equals("begin")) {
                failed = null;
                try {
                    bot = make();
                } catch (Throwable error) {
                    bot = null;
                    failed = failure(unwrap(error));
                    failed.addProperty("kind", failed.has("kind") ? "memory" : "load");
                }
                boolean reply = !message.has("reply") || message.get("reply").getAsBoolean();
                if (!reply) continue;
                if (failed == null) {
                    send(ok(id));
                    continue;
                }
            }
            if ((type.equals("call") || type.equals("tell")) && failed == null) {
                String method = message.has("method") ? message.get("method").getAsString() : "";
                JsonElement args = message.has("args") ? message.get("args") : new com.google.gson.JsonArray();
                JsonElement value = null;
                JsonObject error = null;
                try {
                    value = call(method, args);
                } catch (Throwable thrown) {
                    error = failure(unwrap(thrown));
                }
                if (type.equals("tell")) {
                    if (error != null) {
                        failed = error;
                        failed.add("told", id);
                        failed.addProperty("method", method);
                    }
                    continue;
                }
                JsonObject reply;
                if (error == null) {
                    reply = new JsonObject();
                    reply.addProperty("type", "return");
                    reply.add("value", value);
                } else {
                    reply = error;
                }
                reply.add("id", id);
                send(reply);
                continue;
            }
            if (type.equals("tell")) continue;  // the notices after a failed one are not run
            if (failed != null) {
                failed.add("id", id);
                send(failed);
                failed = null;
                if (type.equals("end")) bot = null;
                continue;
            }
            if (type.equals("end")) {
                bot = null;
                JsonObject reply = ok(id);
                reply.addProperty("cpu", cpuSeconds());
                send(reply);
            } else if (!type.equals("begin")) {
                JsonObject reply = failure(new IllegalArgumentException("unknown request type " + type));
                reply.add("id", id);
                send(reply);
            }
        }
    }

    private JsonElement call(String name, JsonElement args) throws Throwable {
        if (bot == null) throw new IllegalStateException("call before begin");
        Method method = methods.get(name);
        if (method == null) throw new NoSuchMethodException("the bot has no method " + name);
        Type[] types = method.getGenericParameterTypes();
        if (!args.isJsonArray() || args.getAsJsonArray().size() != types.length) {
            throw new IllegalArgumentException(method.getName() + " takes " + types.length
                    + " argument(s), the call has " + (args.isJsonArray() ? args.getAsJsonArray().size() : 0));
        }
        Object[] given = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            given[i] = GSON.fromJson(args.getAsJsonArray().get(i), types[i]);
        }
        Object returned = method.invoke(bot, given);
        return returned == null ? JsonNull.INSTANCE : GSON.toJsonTree(returned);
    }

    private String name() {
        try {
            Object named = botClass.getField("NAME").get(null);
            if (named instanceof String text) return text.strip();
        } catch (ReflectiveOperationException | RuntimeException none) {
            // no NAME of its own: the file's name stands
        }
        return "";
    }

    private static Throwable unwrap(Throwable error) {
        while (error instanceof InvocationTargetException && error.getCause() != null) {
            error = error.getCause();
        }
        return error;
    }

    // An exception as a reason says it: its class, its message and where in the bot's file it
    // was thrown (see where), the message cut so that the arena keeps where (it quotes 1,200
    // characters: bots/running/process.py, QUOTE).
    private static String describe(Throwable error) {
        String message = error.getMessage();
        String said = error.getClass().getName() + (message == null ? "" : ": " + message);
        String where = where(error);
        if (!where.isEmpty() && said.length() > MESSAGE_CHARS) {
            said = said.substring(0, MESSAGE_CHARS - 3) + "...";
        }
        return said + where;
    }

    // The most of an exception's own words a reason keeps when it says where after them.
    private static final int MESSAGE_CHARS = 900;
    // The bot's file as it was given (its name in the sandbox's /bot/), or "" if unknown.
    private static String givenFile = "";
    // The bot's class, by its full name, once known (before: a name no class has).
    private static String loadedName = "\0";

    // " (MyBot.java, line 25)": the top frame of the exception's stack in the bot's own code
    // (its file's classes, nested ones too; a jar's: the bot's class), by the name of the file
    // as it was given rather than the one javac compiled (named after the class); "" if none.
    private static String where(Throwable error) {
        String own = BotClass.NAME;
        String source = own.substring(own.lastIndexOf('.') + 1) + ".java";
        for (StackTraceElement frame : error.getStackTrace()) {
            if (frame.getLineNumber() <= 0) continue;
            String file = frame.getFileName();
            if (own.isEmpty()) {  // a jar's bot: its class's frames, by their own file's name
                String name = frame.getClassName();
                if (file != null && (name.equals(loadedName) || name.startsWith(loadedName + "$"))) {
                    return " (" + file + ", line " + frame.getLineNumber() + ")";
                }
            } else if (source.equals(file)) {
                String shown = givenFile.isEmpty() ? source : givenFile;
                return " (" + shown + ", line " + frame.getLineNumber() + ")";
            }
        }
        return "";
    }

    // What went wrong in the bot's code, as an error reply says it (its trace goes to its log).
    private static JsonObject failure(Throwable error) {
        error.printStackTrace();
        JsonObject reply = new JsonObject();
        reply.addProperty("type", "error");
        reply.addProperty("error", describe(error));
        if (error instanceof OutOfMemoryError) reply.addProperty("kind", "memory");
        return reply;
    }

    private static JsonObject ok(JsonElement id) {
        JsonObject reply = new JsonObject();
        reply.addProperty("type", "ok");
        reply.add("id", id);
        return reply;
    }

    private static double cpuSeconds() {
        return ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
    }

    private void send(JsonObject message) {
        out.print(message.toString());
        out.print('\n');
        out.flush();
    }
}
