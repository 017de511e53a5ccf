import { expect, test } from "vitest";
import { verifyPassword } from "../../server/accounts/secrets.ts";
import { createApp } from "../../server/app.ts";
import { ConfigError, loadConfig } from "../../server/config.ts";
import { createLogger } from "../../server/log.ts";
import type { Store } from "../../server/store/store.ts";
import { client, describeStores, fromAddress, seedOwner, TestClock, testConfig, useStore } from "../helpers.ts";

const PASSWORD = "the right password";

test("the budget's configuration: 2 hashes at once, 4 a second, 1 a second per page, each overridable", () => {
  expect(loadConfig({}).passwordHashes).toEqual({ inFlight: 2, perSecond: 4, pagePerSecond: 1 });
  const set = loadConfig({
    PORCHLIGHT_PASSWORD_HASHES_IN_FLIGHT: "8",
    PORCHLIGHT_PASSWORD_HASHES_PER_SECOND: "40",
    PORCHLIGHT_PASSWORD_PAGE_HASHES_PER_SECOND: "5",
  });
  expect(set.passwordHashes).toEqual({ inFlight: 8, perSecond: 40, pagePerSecond: 5 });
  for (const name of [
    "PORCHLIGHT_PASSWORD_HASHES_IN_FLIGHT",
    "PORCHLIGHT_PASSWORD_HASHES_PER_SECOND",
    "PORCHLIGHT_PASSWORD_PAGE_HASHES_PER_SECOND",
  ]) {
    expect(() => loadConfig({ [name]: "0" })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: "many" })).toThrow(name);
  }
});

/**
 * The work scrypt costs, counted: every hash goes through a verifier that counts it, and the work budget runs on
 * a clock the test moves, so that what is hashed is decided by the budget's counts and never by how fast this
 * machine is. The defaults: 2 hashes at once (1 per page), 4 a second (1 per page), each bucket two seconds' worth.
 */
describeStores("the work of password checks is bounded", (kind) => {
  let store: Store;
  let api: ReturnType<typeof client>;
  let app: ReturnType<typeof createApp>["app"];
  let hashes = 0;
  /** The work budget's clock, in ms. */
  let now = 0;

  useStore(kind, async (opened) => {
    ({ store } = opened);
    ({ app } = createApp({
      store,
      config: testConfig(),
      logger: createLogger("silent"),
      clock: new TestClock(),
      checkResponses: true,
      passwordChecks: {
        verify: (candidate, stored) => {
          hashes++;
          return verifyPassword(candidate, stored);
        },
        now: () => now,
      },
    }));
    api = client(app, (await seedOwner(store)).token);
  });

  let n = 0;
  /** A new password page: creating it hashes its password outside the budget, so counts start after it. */
  const makePage = async () => {
    const slug = `work-${kind.name}-${++n}`;
    const created = await api.post("/public/v1/status-pages", {
      name: slug,
      slug,
      visibility: "password",
      password: PASSWORD,
    });
    expect(created.status).toBe(201);
    return { slug, id: created.json.data.id as string, path: `/public/v1/status-page/${slug}` };
  };
  const attempt = async (path: string, password: string, address: string) =>
    app.request(path, { headers: { "x-status-page-password": password } }, fromAddress(address));
  /** Moves the budget's clock past every bucket's refill, so that tests start from full buckets. */
  const rest = () => {
    now += 60_000;
  };

  test("80 wrong guesses from 8 addresses at once: a handful hashed, the rest 429 before any hash; another page unlocks meanwhile", async () => {
    rest();
    const attacked = await makePage();
    const other = await makePage();
    hashes = 0;
    const guesses = Array.from({ length: 80 }, (_, i) =>
      attempt(attacked.path, `guess ${i}`, `198.51.100.${1 + (i % 8)}`),
    );
    // The attacked page holds one of the two slots; the other page's first unlock takes the second at once,
    // without the budget's clock moving.
    const unlock = await attempt(other.path, PASSWORD, "192.0.2.1");
    expect(unlock.status).toBe(200);
    // One guess ran at once and two queued (the page's burst is two, then one a second), the rest were refused
    // at once. The queued ones run as the clock moves.
    now += 2000;
    const answers = await Promise.all(guesses);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(77);
    expect(hashes).toBe(3 + 1);
    const refused = answers.find((a) => a.status === 429) as Response;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ error: "rate_limited", message: expect.stringMatching(/under way/) });
    expect(refused.headers.get("cache-control")).toBe("private, no-store");
    expect(refused.headers.get("vary")).toBe("Authorization, Cookie, X-Status-Page-Password");
    // Attempts refused for the load were given back: each address spent only what was really checked.
    rest();
    const again = await attempt(attacked.path, "guess again", "198.51.100.1");
    expect(again.status).toBe(401);
  });

  test("a visitor refused for the load comes back as told and goes before the flood", async () => {
    rest();
    const page = await makePage();
    hashes = 0;
    let answered = 0;
    const wave = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) =>
        attempt(page.path, `wrong ${from + i}`, `198.18.2.${from + i}`).then((res) => {
          answered++;
          return res.status;
        }),
      );
    const until = async (what: () => boolean) => {
      while (!what()) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    // The page's burst is spent (two hashed) and its queue fills up: one from each wave waits for the clock.
    const first = wave(1, 30);
    await until(() => answered === 29);
    const second = wave(31, 10);
    await until(() => answered === 38);
    const visitor = "192.0.2.77";
    const refused = await attempt(page.path, PASSWORD, visitor);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    const back = attempt(page.path, PASSWORD, visitor);
    now += 1000;
    expect((await back).status).toBe(200);
    expect(hashes).toBe(3);
    rest();
    const statuses = await Promise.all([...first, ...second]);
    expect(statuses.filter((s) => s === 401)).toHaveLength(4);
    expect(hashes).toBe(5);
  });

  test("the same password sent together is hashed once", async () => {
    rest();
    const page = await makePage();
    hashes = 0;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => attempt(page.path, PASSWORD, `203.0.113.${i + 1}`)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(hashes).toBe(1);
  });

  test("a password verified before opens the page with no hash, even while the budget refuses every other attempt", async () => {
    rest();
    const page = await makePage();
    hashes = 0;
    expect((await attempt(page.path, PASSWORD, "192.0.2.10")).status).toBe(200);
    expect(hashes).toBe(1);
    const flood = Array.from({ length: 20 }, (_, i) => attempt(page.path, `wrong ${i}`, `198.18.0.${i + 1}`));
    // The flood took the page's share; a visitor with the right password is not part of it.
    for (let i = 0; i < 5; i++) {
      expect((await attempt(page.path, PASSWORD, `192.0.2.${20 + i}`)).status).toBe(200);
    }
    // A change to the page rebuilds its view; the verified password is still known, its hash unchanged.
    await api.patch(`/public/v1/status-pages/${page.id}`, { description: "changed" });
    expect((await attempt(page.path, PASSWORD, "192.0.2.30")).status).toBe(200);
    rest();
    await Promise.all(flood);
    // The flood's share: one at once (the page's burst had one token left) and the two its queue held.
    expect(hashes).toBe(1 + 3);
    // A new password forgets the old one at once.
    await api.patch(`/public/v1/status-pages/${page.id}`, { password: "another password" });
    rest();
    expect((await attempt(page.path, PASSWORD, "192.0.2.31")).status).toBe(401);
  });

  test("a client over its limit is refused even with a password the server remembers: no free oracle", async () => {
    rest();
    const page = await makePage();
    expect((await attempt(page.path, PASSWORD, "192.0.2.40")).status).toBe(200);
    for (let i = 0; i < 10; i++) {
      rest();
      expect((await attempt(page.path, `wrong ${i}`, "198.51.100.99")).status).toBe(401);
    }
    hashes = 0;
    expect((await attempt(page.path, PASSWORD, "198.51.100.99")).status).toBe(429);
    expect(hashes).toBe(0);
  });
});
