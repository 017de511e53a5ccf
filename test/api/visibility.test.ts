/**
 * Spec 2.6 names a page's visibilities public, private and password-protected. Every answer says
 * password-protected; `password`, the name earlier releases answered with, is still accepted wherever a visibility
 * is sent, and the store keeps writing it (see storedVisibility in server/store/status-pages.ts).
 */
import { expect, test } from "vitest";
import { z } from "zod";
import { Envelope, ErrorEnvelope, Pagination } from "../../server/contract/common.ts";
import { PublicStatusPage, StatusPage } from "../../server/contract/status-page.ts";
import type { Store } from "../../server/store/store.ts";
import { readStaticPages } from "../../server/views/static-site.ts";
import { loadSiteData } from "../../site/data.ts";
import { type App, client, describeStores, makeApp, type OpenedStore, seedOwner, useStore } from "../helpers.ts";

const PASSWORD = "correct horse";
const PageEnvelope = Envelope(StatusPage);
const ListEnvelope = Envelope(z.object({ statusPages: z.array(StatusPage), pagination: Pagination }));

describeStores("visibility: password-protected out, password accepted in", (kind) => {
  let store: Store;
  let app: App;
  let api: ReturnType<typeof client>;

  const opened: OpenedStore = useStore(kind, async (o) => {
    ({ store } = o);
    ({ app } = makeApp(store));
    api = client(app, (await seedOwner(store)).token);
  });

  let n = 0;
  const slug = (what: string) => `vis-${kind.name}-${what}-${++n}`;
  const create = async (body: Record<string, unknown>) => {
    const res = await api.post("/public/v1/status-pages", { name: "Vis", slug: slug("page"), ...body });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    return PageEnvelope.parse(res.json).data;
  };
  const stored = async (id: number) =>
    (await store.db.selectFrom("status_pages").select("visibility").where("id", "=", id).executeTakeFirstOrThrow())
      .visibility;
  /** Every answer that names the page's visibility: the owner's get and list, and the public view. */
  const answers = async (page: { id: number; slug: string }, headers: Record<string, string>) => {
    const get = PageEnvelope.parse((await api.get(`/public/v1/status-pages/${page.id}`)).json).data;
    const list = ListEnvelope.parse((await api.get("/public/v1/status-pages?perPage=50")).json).data;
    const listed = list.statusPages.find((p) => p.id === page.id);
    const view = await app.request(`/public/v1/status-page/${page.slug}`, { headers });
    expect(view.status).toBe(200);
    const text = await view.text();
    return {
      get: get.visibility,
      list: listed?.visibility,
      view: PublicStatusPage.parse(JSON.parse(text)).visibility,
      text,
    };
  };

  test.each(["password", "password-protected"])(
    "created with %s: every answer says password-protected, a password is asked for, and the store keeps password",
    async (visibility) => {
      const page = await create({ visibility, password: PASSWORD });
      expect(page).toMatchObject({ visibility: "password-protected", hasPassword: true });
      expect(await answers(page, { "x-status-page-password": PASSWORD })).toMatchObject({
        get: "password-protected",
        list: "password-protected",
        view: "password-protected",
      });
      const { text } = await answers(page, { "x-status-page-password": PASSWORD });
      expect(text).toContain('"visibility":"password-protected"');
      expect(text).not.toContain('"visibility":"password"');
      // The access check still tells a password page from a private one.
      const asked = await app.request(`/public/v1/status-page/${page.slug}`);
      expect(asked.status).toBe(401);
      expect((await asked.json()).error).toBe("password_required");
      // The hosted page renders the password prompt, and nothing of the page.
      const hosted = await app.request(`/${page.slug}`);
      expect(hosted.status).toBe(200);
      const html = await hosted.text();
      expect(html).toContain("password_required");
      expect(html).not.toContain('"visibility"');
      expect(await stored(page.id)).toBe("password");
    },
  );

  test("public and private pass through unchanged, in and out", async () => {
    const open = await create({});
    const inner = await create({ visibility: "private" });
    expect(open.visibility).toBe("public");
    expect(inner.visibility).toBe("private");
    expect(await stored(open.id)).toBe("public");
    expect(await stored(inner.id)).toBe("private");
    const asked = await app.request(`/public/v1/status-page/${inner.slug}`);
    expect(asked.status).toBe(401);
    expect((await asked.json()).error).toBe("sign_in_required");
  });

  test("a password page's 401 carries its name, logo and accent for the prompt; a private page's carries none", async () => {
    const theme = { mode: "dark", accentColor: "#b45309" };
    const logo = "https://example.com/acme-logo.png";
    const locked = await create({
      name: "Acme Locked",
      description: "Secret description",
      visibility: "password",
      password: PASSWORD,
      theme,
      logo,
    });
    const plain = await create({ name: "Acme Plain", visibility: "password", password: PASSWORD });
    const inner = await create({ name: "Acme Inner", visibility: "private", theme, logo });
    const read = async (slug: string, headers: Record<string, string> = {}) => {
      const res = await app.request(`/public/v1/status-page/${slug}`, { headers });
      // The raw answer (a parse would drop fields the schema does not name), checked against the schema too.
      const body = await res.json();
      ErrorEnvelope.parse(body);
      return { status: res.status, body: body as ErrorEnvelope };
    };
    const asked = await read(locked.slug);
    expect(asked.status).toBe(401);
    expect(asked.body.error).toBe("password_required");
    // Exactly the three fields, and nothing else of the page.
    expect(asked.body.page).toStrictEqual({ name: "Acme Locked", logo, accentColor: "#b45309" });
    expect(Object.keys(asked.body).sort()).toEqual(["code", "error", "message", "page", "success"]);
    const wrong = await read(locked.slug, { "x-status-page-password": "wrong horse" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("password_incorrect");
    expect(wrong.body.page).toStrictEqual({ name: "Acme Locked", logo, accentColor: "#b45309" });
    expect(JSON.stringify(wrong.body)).not.toContain("Secret description");
    // Without a logo or theme: null and the default accent.
    expect((await read(plain.slug)).body.page).toStrictEqual({
      name: "Acme Plain",
      logo: null,
      accentColor: "#2563eb",
    });
    // A private page's refusal names nothing of it.
    const members = await read(inner.slug);
    expect(members.status).toBe(401);
    expect(members.body.error).toBe("sign_in_required");
    expect(members.body).not.toHaveProperty("page");
    expect(JSON.stringify(members.body)).not.toContain("Acme Inner");
    // A public page's 404 neither.
    const missing = await read("no-such-page-here");
    expect(missing.status).toBe(404);
    expect(missing.body).not.toHaveProperty("page");
  });

  test.each(["password", "password-protected"])("PATCH to %s makes a page password-protected", async (visibility) => {
    const page = await create({});
    const missing = await api.patch(`/public/v1/status-pages/${page.id}`, { visibility });
    expect(missing.status).toBe(400);
    expect(missing.json.details[0].field).toBe("password");
    expect(missing.json.details[0].message).toContain("password-protected");
    const locked = await api.patch(`/public/v1/status-pages/${page.id}`, { visibility, password: PASSWORD });
    expect(locked.status).toBe(200);
    expect(PageEnvelope.parse(locked.json).data).toMatchObject({ visibility: "password-protected", hasPassword: true });
    expect(await stored(page.id)).toBe("password");
    expect((await app.request(`/public/v1/status-page/${page.slug}`)).status).toBe(401);
    // Either name again, with no password: the page keeps the one it has.
    for (const again of ["password", "password-protected"]) {
      const kept = await api.patch(`/public/v1/status-pages/${page.id}`, { visibility: again });
      expect(kept.status).toBe(200);
      expect(kept.json.data).toMatchObject({ visibility: "password-protected", hasPassword: true });
    }
    // A new password alone: the stored visibility (password) is read as password-protected.
    const changed = await api.patch(`/public/v1/status-pages/${page.id}`, { password: "a new password" });
    expect(changed.status).toBe(200);
    const view = await app.request(`/public/v1/status-page/${page.slug}`, {
      headers: { "x-status-page-password": "a new password" },
    });
    expect(view.status).toBe(200);
    expect((await view.json()).visibility).toBe("password-protected");
    const opened = await api.patch(`/public/v1/status-pages/${page.id}`, { visibility: "public" });
    expect(opened.json.data).toMatchObject({ visibility: "public", hasPassword: false });
    expect(await stored(page.id)).toBe("public");
  });

  test("a password with a public or private visibility is still refused, naming password-protected", async () => {
    for (const visibility of ["public", "private"]) {
      const res = await api.post("/public/v1/status-pages", {
        name: "X",
        slug: slug("stray"),
        visibility,
        password: PASSWORD,
      });
      expect(res.status).toBe(400);
      expect(res.json.details).toEqual([
        { field: "password", message: "Set a password only on a password-protected page." },
      ]);
    }
    const page = await create({ visibility: "private" });
    const stray = await api.patch(`/public/v1/status-pages/${page.id}`, { password: PASSWORD });
    expect(stray.status).toBe(400);
    expect(stray.json.details[0]).toMatchObject({ field: "password" });
  });

  test.each([["secret"], ["Password"], ["PASSWORD-PROTECTED"], ["password_protected"], [""], [null], [1], [true]])(
    "visibility %j is a 400 naming visibility, on create and on PATCH",
    async (visibility) => {
      const before = ListEnvelope.parse((await api.get("/public/v1/status-pages?perPage=50")).json).data.pagination
        .total;
      const created = await api.post("/public/v1/status-pages", { name: "X", slug: slug("bad"), visibility });
      expect(created.status).toBe(400);
      expect(created.json.details.map((d: { field: string }) => d.field)).toEqual(["visibility"]);
      const page = await create({});
      const patched = await api.patch(`/public/v1/status-pages/${page.id}`, { visibility });
      expect(patched.status).toBe(400);
      expect(patched.json.details.map((d: { field: string }) => d.field)).toEqual(["visibility"]);
      if (typeof visibility === "string") {
        expect(created.json.details[0].message).toBe("Choose public, private or password-protected.");
      }
      expect(await stored(page.id)).toBe("public");
      const after = ListEnvelope.parse((await api.get("/public/v1/status-pages?perPage=50")).json).data.pagination
        .total;
      expect(after).toBe(before + 1);
    },
  );

  test("the static build data says password-protected, whichever name created the page", async () => {
    const a = await create({ visibility: "password", password: PASSWORD });
    const b = await create({ visibility: "password-protected", password: PASSWORD });
    const pages = await readStaticPages(
      { dataDir: opened.dataDir, ...(opened.databaseUrl ? { databaseUrl: opened.databaseUrl } : {}) },
      new Date(),
    );
    for (const page of [a, b]) {
      expect(pages.find((p) => p.slug === page.slug)).toEqual({ slug: page.slug, visibility: "password-protected" });
    }
    const data = await loadSiteData({
      PORCHLIGHT_DATA_DIR: opened.dataDir,
      ...(opened.databaseUrl ? { DATABASE_URL: opened.databaseUrl } : {}),
    });
    for (const page of [a, b]) {
      expect(data.pages.find((p) => p.slug === page.slug)).toEqual({
        slug: page.slug,
        visibility: "password-protected",
        data: { error: "password_required" },
      });
    }
    expect(data.pages.every((p) => ["public", "private", "password-protected"].includes(p.visibility))).toBe(true);
  });

  test("a row already holding password-protected reads the same; a value no release writes is never served", async () => {
    const page = await create({ visibility: "password", password: PASSWORD });
    await store.db
      .updateTable("status_pages")
      .set({ visibility: "password-protected" })
      .where("id", "=", page.id)
      .execute();
    // A new app: nothing cached from before the row changed.
    const fresh = makeApp(store).app;
    expect((await fresh.request(`/public/v1/status-page/${page.slug}`)).status).toBe(401);
    const view = await fresh.request(`/public/v1/status-page/${page.slug}`, {
      headers: { "x-status-page-password": PASSWORD },
    });
    expect((await view.json()).visibility).toBe("password-protected");
    await store.db.updateTable("status_pages").set({ visibility: "secret" }).where("id", "=", page.id).execute();
    const unknown = await makeApp(store).app.request(`/public/v1/status-page/${page.slug}`);
    expect(unknown.status).toBe(500);
    await store.db.updateTable("status_pages").set({ visibility: "password" }).where("id", "=", page.id).execute();
  });
});

test("the OpenAPI document: requests accept both names, answers name password-protected", async () => {
  // The document needs no data; any store will do.
  const { sqliteKind } = await import("../helpers.ts");
  const { store, cleanup } = await sqliteKind.open();
  try {
    const doc = await (await makeApp(store).app.request("/public/v1/openapi.json")).json();
    const resolve = (schema: { $ref?: string }): any =>
      schema.$ref ? resolve(doc.components.schemas[schema.$ref.replace("#/components/schemas/", "")]) : schema;
    const body = (path: string, method: string) =>
      resolve(doc.paths[path][method].requestBody.content["application/json"].schema);
    const INPUT = ["public", "private", "password-protected", "password"];
    const OUTPUT = ["public", "private", "password-protected"];

    const create = body("/public/v1/status-pages", "post").properties.visibility;
    expect(create.enum).toEqual(INPUT);
    expect(create.default).toBe("public");
    expect(create.description).toContain("password is accepted as an alias of password-protected");
    expect(body("/public/v1/status-pages/{id}", "patch").properties.visibility.enum).toEqual(INPUT);

    expect(doc.components.schemas.StatusPage.properties.visibility.enum).toEqual(OUTPUT);
    expect(doc.components.schemas.PublicStatusPage.properties.visibility.enum).toEqual(OUTPUT);
    const answer = (path: string, method: string, status: string) =>
      resolve(doc.paths[path][method].responses[status].content["application/json"].schema);
    const created = resolve(answer("/public/v1/status-pages", "post", "201").properties.data);
    expect(created.properties.visibility.enum).toEqual(OUTPUT);
    const view = answer("/public/v1/status-page/{slug}", "get", "200");
    expect(view.properties.visibility.enum).toEqual(OUTPUT);
    // No answer anywhere names the alias.
    const outputs = JSON.stringify(
      Object.entries(doc.components.schemas).filter(([name]) => !/(Create|Patch|Input)$/.test(name)),
    );
    expect(outputs).not.toContain('"password"]');
    expect(outputs).toContain('"password-protected"]');
  } finally {
    await cleanup();
  }
});
