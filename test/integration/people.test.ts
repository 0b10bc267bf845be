/**
 * The People routes over HTTP against the embedded runtime: only an admin's session manages
 * the people (a member's, a viewer's and a key are refused as the gateway refuses any call it
 * may not make); a person added there signs in with the password shown once and sees the apps
 * granted; a grant and a revoke change what they see at their next call; a reset and a removal
 * end their session; an admin cannot remove themselves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardSession, signIn } from "../support/dashboard-session.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.people";
const OTHER_APP = "com.example.people-other";

describe("the People routes", () => {
  let rt: TestRuntime;
  let owner: DashboardSession;

  beforeAll(async () => {
    rt = await startTestRuntime();
    if (!rt.owner) throw new Error("The first start made no owner account");
    owner = await signIn(rt.url, rt.owner.email, rt.owner.password);
    for (const [appId, platform] of [
      [APP, "android"],
      [OTHER_APP, "ios"],
    ] as const) {
      const made = await owner.send("POST", "/v1/apps", { app_id: appId, name: appId, platform });
      expect(made.status).toBe(201);
    }
  });

  afterAll(async () => {
    await rt.dispose();
  });

  const path = (email: string) => `/v1/users/${encodeURIComponent(email)}`;

  const add = async (body: Record<string, unknown>) => {
    const response = await owner.send("POST", "/v1/users", body);
    expect(response.status, await response.clone().text()).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    return (await response.json()) as {
      user: { email: string; role: string; app_ids: string[] };
      password: string;
    };
  };

  const appIdsSeenBy = async (session: DashboardSession) =>
    ((await (await session.get("/v1/apps")).json()) as { apps: { app_id: string }[] }).apps.map(
      (app) => app.app_id,
    );

  it("lists the people to an admin, with their role, apps, start and TOTP, and no secret", async () => {
    const response = await owner.get("/v1/users");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { users: Record<string, unknown>[] };
    expect(body.users).toContainEqual({
      email: rt.owner?.email,
      role: "admin",
      // The apps the owner made, granted to their maker as to anyone's.
      app_ids: [APP, OTHER_APP],
      created_at: expect.any(String),
      totp: false,
    });
    expect(JSON.stringify(body)).not.toMatch(/hash|secret|generation/i);
  });

  it("adds a viewer who signs in with the password shown once, sees only the app granted, and changes nothing", async () => {
    const { user, password } = await add({
      email: "Viewer@People.example",
      role: "viewer",
      app_ids: [APP],
    });
    expect(user).toMatchObject({ email: "viewer@people.example", role: "viewer", app_ids: [APP] });
    const viewer = await signIn(rt.url, "viewer@people.example", password);
    expect(await appIdsSeenBy(viewer)).toEqual([APP]);
    expect((await viewer.send("PATCH", `/v1/apps/${APP}`, { name: "No" })).status).toBe(401);
    // Nor may a viewer manage the people: the gateway's refusal, in the spec's error body.
    for (const response of [
      await viewer.get("/v1/users"),
      await viewer.send("POST", "/v1/users", { email: "x@people.example" }),
      await viewer.send("DELETE", path("viewer@people.example")),
    ]) {
      expect(response.status).toBe(401);
      expect(Object.keys((await response.json()) as object).sort()).toEqual(["detail", "error"]);
    }
  });

  it("refuses a member's session and any key the people routes", async () => {
    const { password } = await add({ email: "member@people.example", app_ids: [APP] });
    const member = await signIn(rt.url, "member@people.example", password);
    expect((await member.get("/v1/users")).status).toBe(401);
    expect((await member.send("POST", `${path("member@people.example")}/password`)).status).toBe(
      401,
    );
    expect(
      (await member.send("PUT", `${path("member@people.example")}/apps/${OTHER_APP}`)).status,
    ).toBe(401);
    // Still a member: nothing was granted.
    expect(await appIdsSeenBy(member)).toEqual([APP]);
    // A change of the owner's without the session's CSRF token is refused too.
    const noCsrf = await owner.fetch("/v1/users", {
      method: "POST",
      body: JSON.stringify({ email: "nocsrf@people.example" }),
      csrf: false,
    });
    expect(noCsrf.status).toBe(401);
    const made = (await (
      await owner.send("POST", "/v1/apps/com.example.people/keys", { kind: "server" })
    ).json()) as { key: { key: string } };
    expect((await rt.get("/v1/users", made.key.key)).status).toBe(401);
  });

  it("grants and revokes an app, which the person sees or not at their next call", async () => {
    const { password } = await add({ email: "grants@people.example" });
    const person = await signIn(rt.url, "grants@people.example", password);
    expect(await appIdsSeenBy(person)).toEqual([]);
    const granted = await owner.send("PUT", `${path("grants@people.example")}/apps/${OTHER_APP}`);
    expect(granted.status).toBe(200);
    expect(await granted.json()).toMatchObject({ user: { app_ids: [OTHER_APP] } });
    expect(await appIdsSeenBy(person)).toEqual([OTHER_APP]);
    expect((await person.get(`/v1/apps/${OTHER_APP}`)).status).toBe(200);
    const revoked = await owner.send(
      "DELETE",
      `${path("grants@people.example")}/apps/${OTHER_APP}`,
    );
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ user: { app_ids: [] } });
    expect((await person.get(`/v1/apps/${OTHER_APP}`)).status).toBe(401);
    // An app that does not exist is not granted; an admin sees every app already.
    expect(
      (await owner.send("PUT", `${path("grants@people.example")}/apps/com.example.none`)).status,
    ).toBe(404);
    expect((await owner.send("PUT", `${path(rt.owner?.email ?? "")}/apps/${APP}`)).status).toBe(
      409,
    );
  });

  it("resets a password: the old one and the person's session end, the new one signs in", async () => {
    const { password } = await add({ email: "reset@people.example" });
    const before = await signIn(rt.url, "reset@people.example", password);
    // The session holds until the reset: its end below is the reset's doing.
    expect((await before.get("/v1/session")).status).toBe(200);
    const response = await owner.send("POST", `${path("reset@people.example")}/password`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const { password: next } = (await response.json()) as { password: string };
    expect(next).not.toBe(password);
    expect((await before.get("/v1/session")).status).toBe(401);
    await expect(signIn(rt.url, "reset@people.example", password)).rejects.toThrow(/401/);
    await signIn(rt.url, "reset@people.example", next);
    expect((await owner.send("POST", `${path("nobody@people.example")}/password`)).status).toBe(
      404,
    );
  });

  it("removes a person, whose session ends; not the admin asking, nor one unknown", async () => {
    const { password } = await add({ email: "leaving@people.example", app_ids: [APP] });
    const leaving = await signIn(rt.url, "leaving@people.example", password);
    expect(await appIdsSeenBy(leaving)).toEqual([APP]);
    expect((await owner.send("DELETE", path("leaving@people.example"))).status).toBe(204);
    expect((await leaving.get("/v1/apps")).status).toBe(401);
    await expect(signIn(rt.url, "leaving@people.example", password)).rejects.toThrow(/401/);
    const listed = (await (await owner.get("/v1/users")).json()) as {
      users: { email: string }[];
    };
    expect(listed.users.map((user) => user.email)).not.toContain("leaving@people.example");

    const self = await owner.send("DELETE", path(rt.owner?.email ?? ""));
    expect(self.status).toBe(409);
    expect(((await self.json()) as { detail: string }).detail).toMatch(/cannot remove yourself/);
    expect((await owner.send("DELETE", path("nobody@people.example"))).status).toBe(404);
    // The owner's session still holds.
    expect((await owner.get("/v1/session")).status).toBe(200);
  });

  it("refuses a person again, a bad email or role, an unknown app, and apps for an admin", async () => {
    await add({ email: "twice@people.example" });
    const again = await owner.send("POST", "/v1/users", { email: "TWICE@people.example" });
    expect(again.status).toBe(409);
    for (const body of [
      { email: "not an email" },
      { email: "role@people.example", role: "owner" },
      { email: "apps@people.example", app_ids: ["com.example.none"] },
      { email: "admin@people.example", role: "admin", app_ids: [APP] },
    ]) {
      const refused = await owner.send("POST", "/v1/users", body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
    }
    const listed = (await (await owner.get("/v1/users")).json()) as {
      users: { email: string }[];
    };
    expect(listed.users.map((user) => user.email)).not.toContain("admin@people.example");
  });
});
