/**
 * Who sees what through the dashboard's session, over HTTP: a person sees only the apps they
 * may see, on every route a session reaches (apps, keys, links, export, reports); a change needs the
 * session's own CSRF token; signing out ends the session; a key is never a session.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPasswordCredentials } from "../../src/adapters/dynamodb/password-credentials.ts";
import { addUser } from "../../src/dashboard/accounts.ts";
import { SESSION_LIFETIME_MS } from "../../src/domain/sessions.ts";
import { type DashboardSession, signIn } from "../support/dashboard-session.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const OWNER_APP = "com.example.owners";
const OTHER_APP = "com.example.others";
const BRAND_APP = "com.example.brand";

/** A tap on the link host as a phone makes it on one of its hosts: `Host` names that host. */
const tapOn = (linkUrl: string, host: string, path: string) =>
  new Promise<{ status: number }>((resolve, reject) => {
    const asked = request(new URL(path, linkUrl), { headers: { host } }, (answer) => {
      answer.resume();
      resolve({ status: answer.statusCode ?? 0 });
    });
    asked.on("error", reject);
    asked.end();
  });

describe("the dashboard's sessions", () => {
  let rt: TestRuntime;
  let owner: DashboardSession;
  let other: DashboardSession;

  beforeAll(async () => {
    rt = await startTestRuntime();
    if (!rt.owner) throw new Error("The first start made no owner account");
    owner = await signIn(rt.url, rt.owner.email, rt.owner.password);
    await addUser(
      { users: rt.stores.users, credentials: createPasswordCredentials(rt.stores.users) },
      { email: "Second@Example.com", password: "second person's password" },
    );
    other = await signIn(rt.url, "second@example.com", "second person's password");
    const made = await owner.send("POST", "/v1/apps", {
      app_id: OWNER_APP,
      name: "Owner's",
      platform: "android",
    });
    expect(made.status).toBe(201);
    const theirs = await other.send("POST", "/v1/apps", {
      app_id: OTHER_APP,
      name: "Other's",
      platform: "ios",
    });
    expect(theirs.status).toBe(201);
  });

  afterAll(async () => {
    await rt.dispose();
  });

  const appIdsOf = async (session: DashboardSession) =>
    ((await (await session.get("/v1/apps")).json()) as { apps: { app_id: string }[] }).apps.map(
      (app) => app.app_id,
    );

  it("shows a person only their apps; the owner (an admin) sees every app", async () => {
    expect(await appIdsOf(other)).toEqual([OTHER_APP]);
    expect(await appIdsOf(owner)).toEqual(expect.arrayContaining([OWNER_APP, OTHER_APP]));
  });

  it("refuses a person's app the link host another app names, or the service's own", async () => {
    const hosts = (session: DashboardSession, appId: string, names: string[]) =>
      session.send("PATCH", `/v1/apps/${appId}`, { links: { hosts: names } });
    expect((await hosts(owner, OWNER_APP, ["go.owners.example"])).status).toBe(200);
    const taken = await hosts(other, OTHER_APP, ["GO.owners.example"]);
    expect(taken.status).toBe(409);
    const refusal = ((await taken.json()) as { detail: string }).detail;
    expect(refusal).toMatch(/go\.owners\.example is another app's already/);
    // Nor does the refusal name an app this person may not see.
    expect(refusal).not.toContain(OWNER_APP);
    const service = await hosts(other, OTHER_APP, [new URL(rt.linkUrl).host]);
    expect(service.status).toBe(409);
    expect(((await service.json()) as { detail: string }).detail).toMatch(
      /the service's own link host/,
    );
    // Neither was kept: the other app names no host, and the owner's host serves its links.
    const { app } = (await (await other.get(`/v1/apps/${OTHER_APP}`)).json()) as {
      app: { links: { hosts: string[] } };
    };
    expect(app.links.hosts).toEqual([]);
    expect((await hosts(other, OTHER_APP, ["go.others.example"])).status).toBe(200);
  });

  it("moves a link host named first by a stranger's app to the app its domain's DNS names", async () => {
    await addUser(
      { users: rt.stores.users, credentials: createPasswordCredentials(rt.stores.users) },
      { email: "brand@example.com", password: "the brand's own password" },
    );
    const brand = await signIn(rt.url, "brand@example.com", "the brand's own password");
    expect(
      (await brand.send("POST", "/v1/apps", { app_id: BRAND_APP, name: "Brand", platform: "ios" }))
        .status,
    ).toBe(201);
    const hosts = (session: DashboardSession, appId: string, names: string[]) =>
      session.send("PATCH", `/v1/apps/${appId}`, { links: { hosts: names } });
    const hostsOf = async (appId: string) => (await rt.stores.apps.get(appId))?.links?.hosts;
    const detail = async (response: Response) =>
      ((await response.json()) as { detail: string }).detail;

    // A stranger names the brand's domain first, and makes a link on it.
    expect((await hosts(other, OTHER_APP, ["go.others.example", "go.brand.example"])).status).toBe(
      200,
    );
    const squatted = await other.send("POST", `/v1/links?app_id=${OTHER_APP}`, {
      media_source: "squat",
      web_url: "https://squatter.example/",
    });
    const squattedUrl = new URL(((await squatted.json()) as { url: string }).url);
    expect(squattedUrl.host).toBe("go.others.example");
    const onBrandHost = (path: string) => tapOn(rt.linkUrl, "go.brand.example", path);
    expect((await onBrandHost(squattedUrl.pathname)).status).toBe(302);

    // The brand is refused, and told which record proves the domain theirs.
    const refused = await hosts(brand, BRAND_APP, ["go.brand.example"]);
    expect(refused.status).toBe(409);
    const told = await detail(refused);
    expect(told).toContain(
      `add to its DNS a TXT record _attribution.go.brand.example with the value "attribution-app=${BRAND_APP}"`,
    );
    expect(told).not.toContain(OTHER_APP);
    // A record naming another app proves nothing, nor does a DNS that cannot answer.
    rt.dns.setTxt("_attribution.go.brand.example", "attribution-app=com.example.unrelated");
    expect((await hosts(brand, BRAND_APP, ["go.brand.example"])).status).toBe(409);
    rt.dns.failing("_attribution.go.brand.example");
    const unanswered = await hosts(brand, BRAND_APP, ["go.brand.example"]);
    expect(unanswered.status).toBe(409);
    expect(await detail(unanswered)).toMatch(/Its DNS did not answer/);
    expect(await hostsOf(BRAND_APP)).toBeUndefined();
    expect(await hostsOf(OTHER_APP)).toEqual(["go.others.example", "go.brand.example"]);

    // With the record, the host moves: the stranger's app keeps only its own host.
    rt.dns.setTxt("_attribution.go.brand.example", `attribution-app=${BRAND_APP}`);
    rt.dns.healthy("_attribution.go.brand.example");
    expect((await hosts(brand, BRAND_APP, ["go.brand.example"])).status).toBe(200);
    expect(await hostsOf(BRAND_APP)).toEqual(["go.brand.example"]);
    expect(await hostsOf(OTHER_APP)).toEqual(["go.others.example"]);
    // The stranger's link no longer opens on the brand's domain, and it cannot be named again.
    expect((await onBrandHost(squattedUrl.pathname)).status).toBe(404);
    const again = await hosts(other, OTHER_APP, ["go.others.example", "go.brand.example"]);
    expect(again.status).toBe(409);
    expect(await hostsOf(OTHER_APP)).toEqual(["go.others.example"]);

    // Records naming two apps let both name the host, neither taking it from the other.
    rt.dns.setTxt(
      "_attribution.go.brand.example",
      `attribution-app=${BRAND_APP}`,
      `attribution-app=${OTHER_APP}`,
    );
    expect((await hosts(other, OTHER_APP, ["go.others.example", "go.brand.example"])).status).toBe(
      200,
    );
    expect(await hostsOf(BRAND_APP)).toEqual(["go.brand.example"]);
    expect(await hostsOf(OTHER_APP)).toEqual(["go.others.example", "go.brand.example"]);
    // Records removed later take nothing back: a save naming the hosts as they are (as the
    // settings form sends them with any change) asks no proof of a host the app has.
    rt.dns.setTxt("_attribution.go.brand.example");
    const resaved = await other.send("PATCH", `/v1/apps/${OTHER_APP}`, {
      time_zone: "Europe/Berlin",
      links: { hosts: ["go.others.example", "go.brand.example"] },
    });
    expect(resaved.status).toBe(200);
    expect((await hosts(other, OTHER_APP, ["go.others.example"])).status).toBe(200);
  });

  it("refuses another person's app on every route a session reaches", async () => {
    const refused = [
      await other.get(`/v1/apps/${OWNER_APP}`),
      await other.send("PATCH", `/v1/apps/${OWNER_APP}`, { name: "Taken" }),
      await other.get(`/v1/apps/${OWNER_APP}/keys`),
      await other.send("POST", `/v1/apps/${OWNER_APP}/keys`, { kind: "server" }),
      await other.get(`/v1/links?app_id=${OWNER_APP}`),
      await other.send("POST", `/v1/links?app_id=${OWNER_APP}`, { media_source: "x" }),
      await other.get(`/api/v1/export?app_id=${OWNER_APP}&timestamp=0`),
      await other.get(`/v1/reports/overview?app_id=${OWNER_APP}&from=2026-01-01&to=2026-01-02`),
      await other.get(`/v1/reports/latest-events?app_id=${OWNER_APP}`),
    ];
    expect(refused.map((response) => response.status)).toEqual(refused.map(() => 401));
    expect((await rt.stores.apps.get(OWNER_APP))?.name).toBe("Owner's");
    expect(await rt.stores.keys.listByApp(OWNER_APP)).toEqual([]);
  });

  it("lets a person use their own app's links and export with the session", async () => {
    const link = await other.send("POST", `/v1/links?app_id=${OTHER_APP}`, { media_source: "qr" });
    expect(link.status).toBe(201);
    const { deeplink_id } = (await link.json()) as { deeplink_id: string };
    const listed = await other.get(`/v1/links?app_id=${OTHER_APP}`);
    const ids = ((await listed.json()) as { data: { deeplink_id: string }[] }).data.map(
      (each) => each.deeplink_id,
    );
    expect(ids).toContain(deeplink_id);
    const exported = await other.get(`/api/v1/export?app_id=${OTHER_APP}&timestamp=0&format=json`);
    expect(exported.status).toBe(200);
  });

  it("refuses a route that needs an app when the request names none", async () => {
    expect((await other.get("/v1/links")).status).toBe(401);
  });

  it("refuses an app id no app can have, even to an admin, who may see any app", async () => {
    const long = "a".repeat(3_000);
    const refused = [
      await owner.get("/v1/reports/overview?app_id=&from=2026-01-01&to=2026-01-02"),
      await owner.get(`/v1/reports/overview?app_id=${long}&from=2026-01-01&to=2026-01-02`),
      await owner.get(`/v1/apps/${long}`),
      await owner.get(`/v1/apps/${long}/keys`),
      await owner.send("PATCH", `/v1/apps/${long}`, { name: "Nobody" }),
    ];
    expect(refused.map((response) => response.status)).toEqual(refused.map(() => 401));
  });

  it("refuses, even to an admin, an app that does not exist, and makes nothing for it", async () => {
    const missing = "com.example.missing";
    const refused = [
      await owner.get(`/v1/apps/${missing}`),
      await owner.send("POST", `/v1/links?app_id=${missing}`, { media_source: "qr" }),
      await owner.send("POST", `/v1/apps/${missing}/keys`, { kind: "server" }),
    ];
    expect(refused.map((response) => response.status)).toEqual(refused.map(() => 401));
    expect(await rt.stores.keys.listByApp(missing)).toEqual([]);
    expect((await rt.stores.links.listByApp(missing, { limit: 10 })).links).toEqual([]);
  });

  it("refuses a change without the session's CSRF token, or with another session's", async () => {
    const without = await other.fetch(`/v1/apps/${OTHER_APP}`, {
      method: "PATCH",
      body: JSON.stringify({ name: "No token" }),
      csrf: false,
    });
    const borrowed = await other.fetch(`/v1/apps/${OTHER_APP}`, {
      method: "PATCH",
      body: JSON.stringify({ name: "Wrong token" }),
      csrf: false,
      headers: { "x-csrf-token": owner.csrfToken },
    });
    expect([without.status, borrowed.status]).toEqual([401, 401]);
    expect((await rt.stores.apps.get(OTHER_APP))?.name).toBe("Other's");
  });

  it("never takes an API key for a person: the app routes refuse every key", async () => {
    const keys = await rt.createApp("com.example.keyed");
    for (const key of [keys.sdkKey, keys.serverKey]) {
      expect((await rt.get("/v1/apps", key)).status).toBe(401);
    }
  });

  it("signs a person in by their email in any case, with a cookie for the session's hours that no script or other site reads, Secure behind TLS", async () => {
    const password = "second person's password";
    const behindTls = await fetch(`${rt.url}/v1/session`, {
      method: "POST",
      headers: { "content-type": "Application/JSON; charset=utf-8", "x-forwarded-proto": "https" },
      body: JSON.stringify({ email: "  SECOND@example.COM ", password }),
    });
    expect(behindTls.status).toBe(200);
    const cookie = behindTls.headers.get("set-cookie") ?? "";
    expect(cookie.split("; ").slice(1)).toEqual(
      expect.arrayContaining(["Path=/", "HttpOnly", "SameSite=Strict", "Secure"]),
    );
    const maxAge = Number(/Max-Age=(\d+)/.exec(cookie)?.[1]);
    expect(maxAge).toBeLessThanOrEqual(SESSION_LIFETIME_MS / 1000);
    expect(maxAge).toBeGreaterThan(SESSION_LIFETIME_MS / 1000 - 60);
    // Over plain HTTP, as on this machine: a Secure cookie would never come back.
    const plain = await rt.post("/v1/session", { email: "second@example.com", password });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("set-cookie")).not.toMatch(/Secure/);
  });

  it("refuses a wrong password and an unknown person alike", async () => {
    const wrong = await rt.post("/v1/session", { email: "second@example.com", password: "nope" });
    const unknown = await rt.post("/v1/session", { email: "nobody@example.com", password: "nope" });
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    expect(await wrong.json()).toEqual(await unknown.json());
  });

  it("refuses even the right password for a while after ten wrong ones", async () => {
    await addUser(
      { users: rt.stores.users, credentials: createPasswordCredentials(rt.stores.users) },
      { email: "guessed@example.com", password: "the right password" },
    );
    // From one address (a proxy on this machine names it, as the runtime trusts by default).
    const from = (address: string) => ({ "x-forwarded-for": address });
    for (let i = 0; i < 10; i += 1) {
      const wrong = await rt.post(
        "/v1/session",
        { email: "guessed@example.com", password: `no ${i}` },
        undefined,
        from("203.0.113.50"),
      );
      expect(wrong.status).toBe(401);
    }
    const right = await rt.post(
      "/v1/session",
      { email: "guessed@example.com", password: "the right password" },
      undefined,
      from("203.0.113.50"),
    );
    expect(right.status).toBe(401);
    expect(((await right.json()) as { detail: string }).detail).toMatch(
      /Too many failed sign-ins for this account from your address: try again in 1[45] minutes/,
    );
    // The person still signs in from elsewhere: whoever reaches the port cannot lock them out.
    const elsewhere = await rt.post(
      "/v1/session",
      { email: "guessed@example.com", password: "the right password" },
      undefined,
      from("198.51.100.60"),
    );
    expect(elsewhere.status).toBe(200);
    // Someone else still signs in.
    await signIn(rt.url, "second@example.com", "second person's password");
  });

  it("lets no more than ten wrong passwords through when they all come at once", async () => {
    await addUser(
      { users: rt.stores.users, credentials: createPasswordCredentials(rt.stores.users) },
      { email: "burst@example.com", password: "the right password" },
    );
    const from = { "x-forwarded-for": "203.0.113.51" };
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        rt.post(
          "/v1/session",
          { email: "burst@example.com", password: `no ${i}` },
          undefined,
          from,
        ),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 401));
    const details = await Promise.all(
      answers.map(async (answer) => ((await answer.json()) as { detail: string }).detail),
    );
    expect(
      details.filter((detail) => detail === "The email or the password is wrong."),
    ).toHaveLength(10);
    expect(details.filter((detail) => detail.startsWith("Too many failed sign-ins"))).toHaveLength(
      30,
    );
    const right = await rt.post(
      "/v1/session",
      { email: "burst@example.com", password: "the right password" },
      undefined,
      from,
    );
    expect(right.status).toBe(401);
  });

  it("lets a viewer read its app's reports, settings and exports, and change nothing", async () => {
    await addUser(
      { users: rt.stores.users, credentials: createPasswordCredentials(rt.stores.users) },
      {
        email: "viewer@example.com",
        password: "the viewer's password",
        viewer: true,
        appIds: [OWNER_APP],
      },
    );
    const viewer = await signIn(rt.url, "viewer@example.com", "the viewer's password");
    const me = (await (await viewer.get("/v1/session")).json()) as { user: { viewer: boolean } };
    expect(me.user.viewer).toBe(true);
    const today = new Date().toISOString().slice(0, 10);
    for (const path of [
      `/v1/apps/${OWNER_APP}`,
      `/v1/reports/overview?app_id=${OWNER_APP}&from=${today}&to=${today}`,
      `/v1/links?app_id=${OWNER_APP}`,
    ]) {
      expect((await viewer.get(path)).status, path).toBe(200);
    }
    for (const [method, path, body] of [
      ["PATCH", `/v1/apps/${OWNER_APP}`, { attribution: { click_window_days: 3 } }],
      ["POST", `/v1/apps/${OWNER_APP}/keys`, { kind: "server" }],
      ["POST", `/v1/links?app_id=${OWNER_APP}`, { media_source: "viewer" }],
      [
        "PUT",
        `/v1/postbacks/settings?app_id=${OWNER_APP}`,
        { share_device_data_without_consent: true },
      ],
      ["POST", "/v1/apps", { app_id: "com.example.viewers", name: "Viewer's", platform: "ios" }],
    ] as const) {
      expect((await viewer.send(method, path, body)).status, `${method} ${path}`).toBe(401);
    }
    // Nothing changed: the owner's settings are as they were.
    const app = (await (await owner.get(`/v1/apps/${OWNER_APP}`)).json()) as {
      app: { attribution: { click_window_days: number } };
    };
    expect(app.app.attribution.click_window_days).not.toBe(3);
  });

  it("serves the favicon the page names, so no page asks for one in vain", async () => {
    const page = await (await fetch(`${rt.url}/`)).text();
    expect(page).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.svg" />');
    const icon = await fetch(`${rt.url}/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(await icon.text()).toMatch(/^<svg /);
  });

  it("ends the session at sign-out: the cookie then reaches nothing", async () => {
    const leaving = await signIn(rt.url, "second@example.com", "second person's password");
    expect((await leaving.get("/v1/apps")).status).toBe(200);
    expect((await leaving.send("DELETE", "/v1/session")).status).toBe(204);
    expect((await leaving.get("/v1/apps")).status).toBe(401);
    expect((await leaving.get("/v1/session")).status).toBe(401);
  });
});
