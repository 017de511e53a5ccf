import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { describe, expect, test } from "vitest";
import { MAX_BODY_BYTES } from "../../server/app.ts";
import { ErrorEnvelope } from "../../server/contract/common.ts";
import { makeApp, seedOwner, sqliteKind, useStore } from "../helpers.ts";

/**
 * The body limit over real sockets: real clients (Node's fetch, raw node:net) against the app's node:http listener.
 * A refused body must come back as the 413 envelope, never as a reset, EPIPE or a connection left hanging.
 */

const KiB = 1024;
const MiB = 1024 * KiB;
/** How long a client waits for the server to answer or close before the test calls it a hang. */
const HANG_MS = 15_000;

let server: Server;
let port: number;
let token: string;

useStore(sqliteKind, async ({ store }) => {
  const { listener } = makeApp(store);
  token = (await seedOwner(store)).token;
  server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  return async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
});

const url = (path: string) => `http://127.0.0.1:${port}${path}`;
const json = { "content-type": "application/json" };

/** A JSON body of `size` bytes: valid JSON, so that only its size can be refused. */
function jsonOfSize(size: number): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`{"name":"${"x".repeat(size - 11)}"}`);
}

/** What an answer must be when a body is refused. */
function expectRefusal(status: number, headers: Headers | Record<string, string>, body: string) {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : (headers[name] ?? null));
  expect(status).toBe(413);
  expect(get("connection")).toBe("close");
  expect(get("x-content-type-options")).toBe("nosniff");
  expect(get("x-request-id")).toBeTruthy();
  const envelope = ErrorEnvelope.parse(JSON.parse(body));
  expect(envelope).toMatchObject({ code: 413, error: "payload_too_large" });
  expect(envelope.message).toContain(String(MAX_BODY_BYTES));
}

describe("Node's fetch (undici)", () => {
  for (const size of [256 * KiB, 1 * MiB, 4 * MiB]) {
    test(`a ${size / KiB} KiB body gets the 413, 20 times out of 20, never a reset`, async () => {
      const body = jsonOfSize(size);
      const outcomes: string[] = [];
      for (let i = 0; i < 20; i++) {
        try {
          const res = await fetch(url("/public/v1/sites"), {
            method: "POST",
            headers: { ...json, authorization: `Bearer ${token}` },
            body,
          });
          const text = await res.text();
          expectRefusal(res.status, res.headers, text);
          outcomes.push(String(res.status));
        } catch (error) {
          const cause = (error as { cause?: { code?: string; message?: string } }).cause;
          outcomes.push(cause?.code ?? cause?.message ?? String(error));
        }
      }
      expect(outcomes).toEqual(Array(20).fill("413"));
    });
  }

  test("on the anonymous API too, before any limit is counted or any body is parsed", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await fetch(url("/public/anon/domain-snapshot"), {
        method: "POST",
        headers: json,
        body: jsonOfSize(1 * MiB),
      });
      expectRefusal(res.status, res.headers, await res.text());
    }
  });

  test("a chunked body (no Content-Length) over the limit gets the 413", async () => {
    const chunk = Buffer.alloc(16 * KiB, "x");
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 1 * MiB) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(url("/public/v1/sites"), {
      method: "POST",
      headers: { ...json, authorization: `Bearer ${token}` },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expectRefusal(res.status, res.headers, await res.text());
  });

  test("a chunked body within the limit is read and answered as usual, on a connection kept alive", async () => {
    const text = JSON.stringify({ url: "https://chunked.example.com", name: "Chunked" });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text.slice(0, 10)));
        controller.enqueue(new TextEncoder().encode(text.slice(10)));
        controller.close();
      },
    });
    const res = await fetch(url("/public/v1/sites"), {
      method: "POST",
      headers: { ...json, authorization: `Bearer ${token}` },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(201);
    expect((await res.json()).data.name).toBe("Chunked");
    expect(res.headers.get("connection")).not.toBe("close");
  });

  test("after a 413 the next requests are answered (the refused connection was closed, not left hanging)", async () => {
    for (let i = 0; i < 3; i++) {
      const refused = await fetch(url("/public/v1/sites"), {
        method: "POST",
        headers: { ...json, authorization: `Bearer ${token}` },
        body: jsonOfSize(2 * MiB),
      });
      expectRefusal(refused.status, refused.headers, await refused.text());
      const next = await fetch(url("/healthz"), { signal: AbortSignal.timeout(HANG_MS) });
      expect(next.status).toBe(200);
    }
  });
});

/** One HTTP/1.1 exchange over a raw socket: what came back, and how the connection ended. */
interface Exchange {
  socket: Socket;
  /** Resolves with the first complete answer (status, lowercase headers, body). */
  answer: Promise<{ status: number; headers: Record<string, string>; body: string; rest: Buffer }>;
  /** Resolves when the socket has closed: `error` is the socket's error (ECONNRESET, EPIPE), if any. */
  closed: Promise<{ error: string | null }>;
}

function rawConnection(): Exchange {
  const socket = connect(port, "127.0.0.1");
  let received = Buffer.alloc(0);
  let error: string | null = null;
  let resolveAnswer: (value: Awaited<Exchange["answer"]>) => void = () => {};
  let rejectAnswer: (reason: Error) => void = () => {};
  const answer = new Promise<Awaited<Exchange["answer"]>>((resolve, reject) => {
    resolveAnswer = resolve;
    rejectAnswer = reject;
  });
  socket.on("data", (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    const end = received.indexOf("\r\n\r\n");
    if (end < 0) return;
    const [statusLine, ...lines] = received.subarray(0, end).toString("latin1").split("\r\n");
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
    );
    const length = Number(headers["content-length"]);
    if (received.length < end + 4 + length) return;
    resolveAnswer({
      status: Number(statusLine?.split(" ")[1]),
      headers,
      body: received.subarray(end + 4, end + 4 + length).toString("utf8"),
      rest: received.subarray(end + 4 + length),
    });
  });
  socket.on("error", (e: NodeJS.ErrnoException) => {
    error = e.code ?? e.message;
  });
  const closed = new Promise<{ error: string | null }>((resolve) => {
    socket.on("close", () => {
      rejectAnswer(new Error(`closed before a complete answer (${error ?? "no error"})`));
      resolve({ error });
    });
  });
  answer.catch(() => {});
  return { socket, answer, closed };
}

/** Fails instead of hanging when `promise` takes longer than HANG_MS. */
function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${HANG_MS} ms`)), HANG_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const head = (lines: string[]) => `${lines.join("\r\n")}\r\n\r\n`;
const pause = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("raw sockets", () => {
  test("a client writing a large body slowly, in chunks, gets the 413 while it writes; the rest is read, then the connection closes cleanly", async () => {
    const total = 1 * MiB;
    const { socket, answer, closed } = rawConnection();
    socket.write(
      head([
        "POST /public/v1/sites HTTP/1.1",
        "Host: localhost",
        "Content-Type: application/json",
        `Authorization: Bearer ${token}`,
        `Content-Length: ${total}`,
      ]),
    );
    let sentWhenAnswered: number | null = null;
    let sent = 0;
    void answer.then(() => {
      sentWhenAnswered = sent;
    });
    // A naive client: it goes on writing its whole body whatever comes back. Closing on those bytes would reset it.
    while (sent < total) {
      const size = Math.min(8 * KiB, total - sent);
      socket.write(Buffer.alloc(size, "x"));
      sent += size;
      await pause();
    }
    const got = await bounded(answer, "the 413");
    expectRefusal(got.status, got.headers, got.body);
    expect(sentWhenAnswered, "answered while the body was still arriving").toBeLessThan(total);
    expect(await bounded(closed, "the close")).toEqual({ error: null });
  });

  test("a client that sends all of a slow body before reading gets the 413 and a clean close", async () => {
    const total = 300 * KiB;
    const { socket, answer, closed } = rawConnection();
    socket.write(
      head([
        "POST /public/anon/domain-snapshot HTTP/1.1",
        "Host: localhost",
        "Content-Type: application/json",
        `Content-Length: ${total}`,
      ]),
    );
    for (let sent = 0; sent < total; sent += 30 * KiB) {
      socket.write(Buffer.alloc(30 * KiB, "x"));
      await pause();
    }
    const got = await bounded(answer, "the 413");
    expectRefusal(got.status, got.headers, got.body);
    expect(await bounded(closed, "the close")).toEqual({ error: null });
  });

  test("a chunked body without Content-Length over the limit gets the 413 and a clean close", async () => {
    const { socket, answer, closed } = rawConnection();
    socket.write(
      head([
        "POST /public/v1/sites HTTP/1.1",
        "Host: localhost",
        "Content-Type: application/json",
        `Authorization: Bearer ${token}`,
        "Transfer-Encoding: chunked",
      ]),
    );
    const chunk = Buffer.alloc(10 * KiB, "x");
    for (let i = 0; i < 20; i++) {
      socket.write(`${chunk.length.toString(16)}\r\n`);
      socket.write(chunk);
      socket.write("\r\n");
      await pause();
    }
    socket.write("0\r\n\r\n");
    const got = await bounded(answer, "the 413");
    expectRefusal(got.status, got.headers, got.body);
    expect(await bounded(closed, "the close")).toEqual({ error: null });
  });

  test("on a keep-alive connection, a 413 for a 2 MB body is followed by a clean close, never a hang", async () => {
    const total = 2 * MiB;
    const { socket, answer, closed } = rawConnection();
    socket.write(
      head([
        "POST /public/v1/sites HTTP/1.1",
        "Host: localhost",
        "Connection: keep-alive",
        "Content-Type: application/json",
        `Authorization: Bearer ${token}`,
        `Content-Length: ${total}`,
      ]),
    );
    socket.write(Buffer.alloc(total, "x"));
    const got = await bounded(answer, "the 413");
    expectRefusal(got.status, got.headers, got.body);
    // The next request on the same connection: answered, or the connection closed cleanly (it said Connection: close).
    socket.write(head(["GET /healthz HTTP/1.1", "Host: localhost"]));
    const end = await bounded(closed, "an answer or a close");
    expect(end).toEqual({ error: null });
  });

  test("a body within the limit leaves the connection open for the next request", async () => {
    const { socket, answer } = rawConnection();
    const body = JSON.stringify({ url: "https://keep.example.com", name: "Keep" });
    socket.write(
      head([
        "POST /public/v1/sites HTTP/1.1",
        "Host: localhost",
        "Content-Type: application/json",
        `Authorization: Bearer ${token}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
      ]) + body,
    );
    const got = await bounded(answer, "the 201");
    expect(got.status).toBe(201);
    expect(got.headers.connection).toBe("keep-alive");
    socket.destroy();
  });
});

describe("request targets node-server routes to the API by another spelling", () => {
  // node-server routes an absolute-form target (`POST http://host/path`) by its pathname, and resolves dot segments
  // and percent-escapes: the guard must see the same path, or the body falls to a limit that closes on unread bytes.
  const targets = [
    () => `http://127.0.0.1:${port}/public/v1/sites`,
    () => "/public/x/../v1/sites",
    () => "/public/%761/sites",
  ];
  for (const target of targets) {
    test(`a 4 MiB body to ${target().replace(String(port), "PORT")} gets the 413 and a clean close, 10 times out of 10`, async () => {
      const total = 4 * MiB;
      const outcomes: string[] = [];
      for (let i = 0; i < 10; i++) {
        const { socket, answer, closed } = rawConnection();
        socket.write(
          head([
            `POST ${target()} HTTP/1.1`,
            `Host: 127.0.0.1:${port}`,
            "Content-Type: application/json",
            `Authorization: Bearer ${token}`,
            `Content-Length: ${total}`,
          ]),
        );
        socket.write(Buffer.alloc(total, "x"));
        try {
          const got = await bounded(answer, "the 413");
          expectRefusal(got.status, got.headers, got.body);
          const end = await bounded(closed, "the close");
          outcomes.push(end.error ?? String(got.status));
        } catch (error) {
          outcomes.push((await bounded(closed, "the close")).error ?? String(error));
        }
      }
      expect(outcomes).toEqual(Array(10).fill("413"));
    });
  }
});
