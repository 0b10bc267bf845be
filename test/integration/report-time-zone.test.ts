/**
 * The app's time zone over HTTP: set in its settings through the dashboard's session (a name no
 * engine reads refused with the spec's 422 body), and the reports' days counted in it: an
 * install at 03:00 UTC is a Los Angeles app's install of the day before, and a UTC app's of
 * that day.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDays } from "../../src/reports/days.ts";
import { type DashboardSession, signIn } from "../support/dashboard-session.ts";
import { androidInstallRequest } from "../support/installs.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";

const APP = "com.example.timezone";

interface Overview {
  time_zone: string;
  installs_by_day: { date: string; media_source: string | null; installs: number }[];
}

describe("an app's time zone in its reports", () => {
  let rt: TestRuntime;
  let owner: DashboardSession;
  let serverKey = "";
  /** The UTC day two days ago, whose 03:00 UTC the install was first opened at. */
  let installDay = "";

  beforeAll(async () => {
    rt = await startTestRuntime();
    if (!rt.owner) throw new Error("The first start made no owner account");
    owner = await signIn(rt.url, rt.owner.email, rt.owner.password);
    let sdkKey = "";
    ({ sdkKey, serverKey } = await rt.createApp(APP, "android"));
    installDay = addDays(new Date().toISOString().slice(0, 10), -2);
    const response = await rt.post(
      "/v1/installs",
      androidInstallRequest("tz-install", {
        first_open_time: `${installDay}T03:00:00.000Z`,
        sent_at: new Date().toISOString(),
      }),
      sdkKey,
    );
    expect(response.status).toBe(202);
    await rt.workers.idle();
    await rt.flush();
  }, 120_000);

  afterAll(() => rt?.dispose());

  const overview = async (): Promise<Overview> => {
    const response = await rt.get(
      `/v1/reports/overview?from=${addDays(installDay, -2)}&to=${addDays(installDay, 1)}`,
      serverKey,
    );
    expect(response.status).toBe(200);
    return (await response.json()) as Overview;
  };

  const installDays = (answer: Overview) =>
    answer.installs_by_day.filter((row) => row.installs > 0).map((row) => row.date);

  it("counts a UTC day unless the app sets a zone", async () => {
    const answer = await overview();
    expect(answer.time_zone).toBe("UTC");
    expect(installDays(answer)).toEqual([installDay]);
  });

  it("counts the days of the zone the app sets, and refuses one no engine reads", async () => {
    const refused = await owner.send("PATCH", `/v1/apps/${APP}`, { time_zone: "Mars/Olympus" });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: "Unprocessable Entity",
      detail:
        "time_zone: must be an IANA time zone of a place, such as America/Los_Angeles, or UTC",
    });

    const set = await owner.send("PATCH", `/v1/apps/${APP}`, { time_zone: "America/Los_Angeles" });
    expect(set.status).toBe(200);
    expect(((await set.json()) as { app: { time_zone: string } }).app.time_zone).toBe(
      "America/Los_Angeles",
    );
    const answer = await overview();
    expect(answer.time_zone).toBe("America/Los_Angeles");
    expect(installDays(answer)).toEqual([addDays(installDay, -1)]);

    const back = await owner.send("PATCH", `/v1/apps/${APP}`, { time_zone: "UTC" });
    expect(back.status).toBe(200);
    expect(installDays(await overview())).toEqual([installDay]);
  });
});
