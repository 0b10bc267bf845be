/**
 * The dashboard in a real browser (the machine's Chromium), against the embedded runtime that
 * serves it, with admins held to a TOTP as on AWS: signing in with the keyboard (a first TOTP
 * set up from its QR code and key, a wrong code refused; the code asked at the next sign-in),
 * the lockouts said as such (per account and address, and per address, other addresses acting
 * through X-Forwarded-For), the favicon and no 404 on a page load, an app made through its form, a key made, used and
 * revoked, a link made and tapped and its preview changed, the overview of demo traffic held to the export of the same
 * window, the Cohorts page of a world sent through the API (the report's figures, a filter and a
 * grouping kept in the address, — for days not reached, each table's CSV equal to it), the
 * overview's filters (its figures and charts the report's of the same filters, kept over a
 * reload, carried to the Cohorts page and back), cost rows uploaded as a CSV file on the Cost
 * page (stored and counted by the Cohorts page, a refused row named beside it, a second upload
 * replacing),
 * settings saved and refused, the latest events, an export downloaded, a second person
 * who sees none of the first's apps, a partner and a webhook on the Partners page (an unsafe
 * address refused, test postbacks to a mock network on loopback, a webhook's secret shown once,
 * a real install's delivery in the log and on the overview), an iOS app's SKAdNetwork page (a
 * schema saved, a fine value of 64 refused at its field, an ad network named) and Apple's sample
 * postbacks counted and decoded on its overview, and every page at a phone's width. The tests run in order
 * and build on each other (one owner, one app), as a person would use the dashboard.
 *
 * Each page is saved as a PNG in test-results/browser/ for a person to look at.
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ORGANIC_COLOUR,
  OTHER_COLOUR,
  PALETTE,
  UNATTRIBUTED_COLOUR,
} from "../../dashboard/src/colours.ts";
import { createPasswordCredentials } from "../../src/adapters/dynamodb/password-credentials.ts";
import { issueKey } from "../../src/apps/registration.ts";
import type { CostAnswer } from "../../src/costs/cost-rows.ts";
import { addUser } from "../../src/dashboard/accounts.ts";
import { totpCode } from "../../src/dashboard/totp.ts";
import { keyIdOf } from "../../src/domain/keys.ts";
import { SESSION_COOKIE } from "../../src/domain/sessions.ts";
import type { OverviewReport as OverviewAnswer } from "../../src/ports/reports.ts";
import { SIGNATURE_HEADER, verifySignature } from "../../src/postbacks/signing.ts";
import { COLUMN_NAMES } from "../../src/record/columns.ts";
import type { CohortReport as CohortAnswer } from "../../src/reports/cohorts.ts";
import { SKAN_4_COARSE, SKAN_4_FINE } from "../../src/skadnetwork/apple-samples.test-support.ts";
import { androidInstallRequest, installRequest } from "../support/installs.ts";
import { clearOfMidnight } from "../support/midnight.ts";
import { type MockNetwork, startMockNetwork } from "../support/mock-network.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";
import { wrongTotpCode } from "../support/totp.ts";
import { DESKTOP, documentWidth, launchChromium, PHONE, screenshot } from "./support/browser.ts";
import {
  COHORT_CAMPAIGN,
  COHORT_NETWORK,
  type CohortWorld,
  parseCsv,
  seedCohortWorld,
} from "./support/cohort-world.ts";
import { type DemoTraffic, driveDemoTraffic } from "./support/demo-traffic.ts";
import { exportTotals } from "./support/export-totals.ts";

const APP_ID = "com.example.browser";
const APP_NAME = "Browser Test App";
const SECOND = { email: "second@example.com", password: "second person's password" };
/** An iOS app, under the App Store id of Apple's sample postbacks. */
const IOS_APP_ID = "com.example.browser.ios";
const IOS_APP_NAME = "Browser Test iOS App";
const APP_STORE_ID = String(SKAN_4_FINE["app-id"]);
const ANDROID_PHONE =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36";

/** A CSS colour's relative luminance (WCAG 2.x): `#rrggbb`, or `rgb(r, g, b)` as computed. */
const luminance = (colour: string): number => {
  const channels = colour.startsWith("#")
    ? [1, 3, 5].map((at) => Number.parseInt(colour.slice(at, at + 2), 16))
    : (colour.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
  const [r = 0, g = 0, b = 0] = channels.map((value) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

/** The contrast ratio of two colours (1 to 21). */
const contrast = (a: string, b: string): number => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return ((light ?? 0) + 0.05) / ((dark ?? 0) + 0.05);
};

/** How long a condition may take to hold: the lake's flush, a report's query, a render. */
const WITHIN = { timeout: 30_000, interval: 200 } as const;
/** The reports keep an answer 30 s (src/adapters/cache/cached-reports.ts). */
const PAST_REPORT_CACHE = { timeout: 60_000, interval: 1_000 } as const;

describe("the dashboard in a browser", () => {
  let rt: TestRuntime;
  /** A partner and the app's backend on loopback, which the runtime lets postbacks reach. */
  let mock: MockNetwork;
  let browser: Browser;
  let owner: BrowserContext;
  let page: Page;
  /** The demo's Android app, once test 5 drove its traffic. */
  let demo: DemoTraffic | undefined;
  /** The overview's window: the UTC days of the demo's traffic. */
  let range: { from: string; to: string };
  /** The Cohorts page's app and its days, once test 5c seeded them. */
  let cohorts: CohortWorld | undefined;

  const ownerAccount = () => {
    if (!rt.owner) throw new Error("The first start made no owner account");
    return rt.owner;
  };
  const demoApp = () => {
    if (!demo) throw new Error("No demo traffic: the overview test drives it");
    return demo;
  };
  const cohortWorld = () => {
    if (!cohorts) throw new Error("No cohorts world: the Cohorts test seeds it");
    return cohorts;
  };
  const today = () => new Date().toISOString().slice(0, 10);
  const dayBefore = (day: string, days: number) =>
    new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
  const open = (on: Page, route: string) => on.goto(`${rt.url}/#${route}`);
  const heading = (on: Page, name: string) =>
    on.getByRole("heading", { level: 1, name, exact: true });
  const navLink = (on: Page, name: string) =>
    on.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
  const cellTexts = async (rows: Locator, column: number) =>
    Promise.all((await rows.all()).map((row) => row.locator("th, td").nth(column).innerText()));
  const countOf = (text: string) => Number(text.replace(/[^\d.-]/g, ""));
  /**
   * An input the service refused: marked, the reason beside it (the first id it is described
   * by), the form's problems under it, and the focus on it.
   */
  const refusedBeside = async (input: Locator, reason: string, problems: Locator) => {
    await expect.poll(() => input.getAttribute("aria-invalid"), WITHIN).toBe("true");
    const [errorId] = (await input.getAttribute("aria-describedby"))?.split(" ") ?? [];
    expect(await input.page().locator(`[id="${errorId}"]`).innerText()).toBe(reason);
    expect(await problems.innerText()).toBe(`Not saved. ${reason}`);
    expect(await problems.getAttribute("role")).toBe("alert");
    const id = await input.getAttribute("id");
    await expect.poll(() => input.page().evaluate("document.activeElement?.id"), WITHIN).toBe(id);
  };
  /** The `aria-label` of the element that has the focus, or its id when it has none. */
  const focused = (on: Page) =>
    on.evaluate<string>(
      "document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.id ?? ''",
    );
  /**
   * Holds the page's requests of a method to a URL until released (then routed no more): how
   * many it held, so a test can press twice while a request is on its way.
   */
  const holdRequests = async (on: Page, url: string, method: string) => {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    /** Each held request's handler, done once its request has gone on. */
    const handlers: Promise<void>[] = [];
    await on.route(url, async (route) => {
      if (route.request().method() !== method) return route.continue();
      const handled = released.then(() => route.continue());
      handlers.push(handled);
      await handled;
    });
    return {
      /** The requests held so far: one a page sends reaches the route some time after the click. */
      held: () => handlers.length,
      release: async () => {
        release();
        // The route goes once its held requests went on: one taken away while its handler
        // waits is handled twice.
        await Promise.all(handlers);
        await on.unroute(url);
      },
    };
  };
  /** GET with the context's session cookie, as the page's own calls go. */
  const apiGet = async (context: BrowserContext, path: string) => {
    const response = await context.request.get(`${rt.url}${path}`);
    return { status: response.status(), body: (await response.json()) as unknown };
  };

  beforeAll(async () => {
    // The demo's devices each connect from their own address, in X-Forwarded-For; the owner,
    // an admin, signs in with a TOTP code as on AWS; postbacks may go to the mock network on
    // loopback (and nowhere else private).
    rt = await startTestRuntime({
      trustProxy: true,
      dashboardTotp: "admins",
      postbacksAllowLoopback: true,
    });
    mock = await startMockNetwork();
    browser = await launchChromium();
    // Reduced motion: Chart.js draws at once, so a screenshot holds the whole chart.
    owner = await browser.newContext({ viewport: DESKTOP, reducedMotion: "reduce" });
    page = await owner.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await rt?.dispose();
    await mock?.close();
  });

  /** The link test 4 made through the page. */
  let madeLink = "";

  /** The owner's TOTP key, once test 1 set it up, and when its first code was taken. */
  let totpKey = "";
  let firstCodeAt = 0;

  it("1. signs the owner in with the keyboard alone: a wrong password refused, a TOTP set up, a wrong code refused", async () => {
    const { email, password } = ownerAccount();
    await page.goto(`${rt.url}/`);
    await heading(page, "Sign in").waitFor();
    expect(new URL(page.url()).hash).toBe("#/sign-in");
    await screenshot(page, "sign-in");

    await page.getByLabel("Email").focus();
    await page.keyboard.type(email);
    await page.keyboard.press("Tab");
    await page.keyboard.type("not the owner's password");
    await page.keyboard.press("Enter");
    const error = page.locator("#sign-in-error");
    await expect.poll(() => error.textContent(), WITHIN).toBe("Wrong email or password.");
    expect(await error.getAttribute("role")).toBe("alert");
    expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(0);
    expect((await owner.cookies()).map((cookie) => cookie.name)).not.toContain(SESSION_COOKIE);
    expect(new URL(page.url()).hash).toBe("#/sign-in");

    // Still in the password field: select what was typed and type the right one.
    expect(await page.evaluate("document.activeElement?.name")).toBe("password");
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.type(password);
    await page.keyboard.press("Enter");

    // An admin with no TOTP: its QR code and key, and the code field focused.
    await page.getByRole("heading", { level: 2, name: "Set up two-step sign-in" }).waitFor();
    const qr = page.getByRole("img", { name: "QR code of the key for your authenticator app" });
    await qr.waitFor();
    expect(await qr.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    totpKey = await page.getByLabel("Key", { exact: true }).inputValue();
    expect(totpKey).toMatch(/^[A-Z2-7]{32}$/);
    expect((await owner.cookies()).map((cookie) => cookie.name)).not.toContain(SESSION_COOKIE);
    await screenshot(page, "sign-in-totp-setup");
    expect(await page.evaluate("document.activeElement?.name")).toBe("code");

    // A wrong code: the service's reason, no session, and the code field again.
    await page.keyboard.type(wrongTotpCode(totpKey));
    await page.keyboard.press("Enter");
    await expect
      .poll(() => error.textContent(), WITHIN)
      .toBe("The code is wrong: enter the code your authenticator app shows now.");
    expect((await owner.cookies()).map((cookie) => cookie.name)).not.toContain(SESSION_COOKIE);
    expect(await page.evaluate("document.activeElement?.name")).toBe("code");

    // The code an authenticator app shows for that key.
    firstCodeAt = Date.now();
    await page.keyboard.type(totpCode(totpKey, firstCodeAt));
    await page.keyboard.press("Enter");
    await heading(page, "Apps").waitFor();
    expect(new URL(page.url()).hash).toBe("#/apps");
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect((await owner.cookies()).map((cookie) => cookie.name)).toContain(SESSION_COOKIE);
  });

  it("1b. asks the owner's code at the next sign-in, and goes back to the password on Start again", async () => {
    const { email, password } = ownerAccount();
    const context = await browser.newContext({ viewport: DESKTOP, reducedMotion: "reduce" });
    try {
      const again = await context.newPage();
      await again.goto(`${rt.url}/`);
      await heading(again, "Sign in").waitFor();
      const signInWithPassword = async () => {
        await again.getByLabel("Email").fill(email);
        await again.getByLabel("Password").fill(password);
        await again.getByRole("button", { name: "Sign in" }).click();
        await again.getByRole("heading", { level: 2, name: "Two-step sign-in" }).waitFor();
      };
      await signInWithPassword();
      // No new key: the one set up is asked for.
      expect(await again.getByLabel("Key", { exact: true }).count()).toBe(0);
      expect(await again.getByRole("img").count()).toBe(0);
      await screenshot(again, "sign-in-totp");

      // A sign-in the service says is over (its fifth wrong code, answered here without counting
      // five against the owner's address) goes back to the password, with the service's words.
      const over = "Too many wrong codes: sign in again with your password.";
      await again.route("**/v1/session", (route) =>
        route.request().method() === "POST" &&
        (route.request().postData() ?? "").includes("challenge_token")
          ? route.fulfill({
              status: 401,
              contentType: "application/json",
              body: JSON.stringify({ error: "Unauthorized", detail: over }),
            })
          : route.continue(),
      );
      await again.getByLabel("Code").fill("123456");
      await again.getByRole("button", { name: "Sign in" }).click();
      await again.getByLabel("Password").waitFor(WITHIN);
      await expect.poll(() => again.locator("#sign-in-error").textContent(), WITHIN).toBe(over);
      expect(await again.getByLabel("Code").count()).toBe(0);
      expect(await again.getByLabel("Email").inputValue()).toBe(email);
      await expect
        .poll(() => again.evaluate("document.activeElement?.name"), WITHIN)
        .toBe("password");
      await again.unroute("**/v1/session");

      await signInWithPassword();
      await again.getByRole("button", { name: "Start again" }).click();
      await again.getByLabel("Password").waitFor();
      await signInWithPassword();
      // The next step's code (or now's, if a step has passed since): the first one was taken,
      // and a code is taken once.
      await again
        .getByLabel("Code")
        .fill(totpCode(totpKey, Math.max(Date.now(), firstCodeAt + 30_000)));
      await again.getByRole("button", { name: "Sign in" }).click();
      await heading(again, "Apps").waitFor();
      expect((await context.cookies()).map((cookie) => cookie.name)).toContain(SESSION_COOKIE);
    } finally {
      await context.close();
    }
  });

  it("1c. says a lockout as such after ten wrong passwords, even to the right one, from that address only; and locks an address that tries fifty accounts' passwords", async () => {
    const { email, password } = ownerAccount();
    // Each context acts as another address: the service takes the caller's address from
    // X-Forwarded-For, which it believes from loopback. The owner's own sign-ins, from loopback
    // itself, are not the addresses locked here, so the later tests are not locked out.
    const contexts: BrowserContext[] = [];
    const signInPageAt = async (address: string) => {
      const context = await browser.newContext({
        viewport: DESKTOP,
        reducedMotion: "reduce",
        extraHTTPHeaders: { "X-Forwarded-For": address },
      });
      contexts.push(context);
      const on = await context.newPage();
      await on.goto(`${rt.url}/`);
      await heading(on, "Sign in").waitFor();
      return { context, on };
    };
    /** One sign-in through the form: the service's status, once its answer is in. */
    const signInOn = async (on: Page, asEmail: string, asPassword: string) => {
      await on.getByLabel("Email").fill(asEmail);
      await on.getByLabel("Password").fill(asPassword);
      const [response] = await Promise.all([
        on.waitForResponse(
          (r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/v1/session",
        ),
        on.getByRole("button", { name: "Sign in" }).click(),
      ]);
      return response.status();
    };
    const errorOn = (on: Page) => on.locator("#sign-in-error");
    try {
      // The per-account limit (src/dashboard/sign-in-guard.ts): ten wrong passwords.
      const first = await signInPageAt("198.51.100.21");
      for (let n = 1; n <= 10; n++) {
        expect(await signInOn(first.on, email, `not the owner's password ${n}`)).toBe(401);
        await expect
          .poll(() => errorOn(first.on).textContent(), WITHIN)
          .toBe("Wrong email or password.");
      }
      // The right password now: refused, and the page says why and for how long.
      expect(await signInOn(first.on, email, password)).toBe(401);
      await expect
        .poll(() => errorOn(first.on).textContent(), WITHIN)
        .toMatch(
          /^Too many failed sign-ins for this account from your address: try again in 1[45] minutes\.$/,
        );
      expect(await errorOn(first.on).getAttribute("role")).toBe("alert");
      expect((await first.context.cookies()).map((cookie) => cookie.name)).not.toContain(
        SESSION_COOKIE,
      );
      await screenshot(first.on, "sign-in-locked");

      // From another address the owner's password is taken: the lockout is not everyone's.
      const second = await signInPageAt("198.51.100.22");
      expect(await signInOn(second.on, email, password)).toBe(200);
      await second.on.getByRole("heading", { level: 2, name: "Two-step sign-in" }).waitFor();

      // The per-address limit: fifty wrong passwords from one address, each for another
      // account (none near its own limit), lock the address, whoever signs in from it.
      const third = await signInPageAt("198.51.100.23");
      for (let n = 0; n < 50; n++) {
        const response = await third.context.request.post(`${rt.url}/v1/session`, {
          data: { email: `nobody-${n}@example.com`, password: "a guessed password" },
        });
        await response.dispose();
        expect(response.status(), `attempt ${n + 1}`).toBe(401);
      }
      expect(await signInOn(third.on, email, password)).toBe(401);
      await expect
        .poll(() => errorOn(third.on).textContent(), WITHIN)
        .toMatch(/^Too many failed sign-ins from your address: try again in 1[45] minutes\.$/);
    } finally {
      await Promise.all(contexts.map((context) => context.close()));
    }
  });

  it("1d. loads the dashboard with its favicon, and no request of the load answers 404", async () => {
    const context = await browser.newContext({
      viewport: DESKTOP,
      reducedMotion: "reduce",
      storageState: await owner.storageState(),
    });
    try {
      const on = await context.newPage();
      const answered: { url: string; status: number }[] = [];
      on.on("response", (response) =>
        answered.push({ url: response.url(), status: response.status() }),
      );
      const favicon = on.waitForResponse((r) => new URL(r.url()).pathname === "/favicon.svg");
      await open(on, "/apps");
      await heading(on, "Apps").waitFor(WITHIN);
      const icon = await favicon;
      expect(icon.status()).toBe(200);
      expect(icon.headers()["content-type"]).toMatch(/^image\/svg\+xml/);
      expect(await on.locator('link[rel="icon"]').getAttribute("href")).toBe("/favicon.svg");
      await on.waitForLoadState("networkidle");
      expect(answered.length).toBeGreaterThan(3);
      expect(answered.filter((one) => one.status === 404)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("1e. draws the focus outline, the inputs' edges and the charts' colours at 3:1 or more against white and the page's background", async () => {
    const context = await browser.newContext({
      viewport: DESKTOP,
      reducedMotion: "reduce",
      storageState: await owner.storageState(),
    });
    try {
      const on = await context.newPage();
      await open(on, "/apps");
      await heading(on, "Apps").waitFor(WITHIN);
      const style = (locator: Locator, property: string) =>
        locator.evaluate(
          (element, name) =>
            (
              globalThis as unknown as {
                getComputedStyle(e: unknown): { getPropertyValue(n: string): string };
              }
            )
              .getComputedStyle(element)
              .getPropertyValue(name),
          property,
        );
      const backgrounds = {
        white: "#ffffff",
        page: await style(on.locator("html"), "background-color"),
        card: await style(on.locator("section.card").first(), "background-color"),
      };
      const atLeast3 = (what: string, colour: string, against: Record<string, string>) => {
        for (const [name, background] of Object.entries(against)) {
          expect(
            contrast(colour, background),
            `${what} (${colour}) on ${name}`,
          ).toBeGreaterThanOrEqual(3);
        }
      };
      const input = on.getByLabel("App id");
      atLeast3("an input's edge", await style(input, "border-top-color"), backgrounds);
      // The keyboard's focus: on an input of the page, and on a link of the dark header.
      await input.focus();
      await on.keyboard.press("Shift+Tab");
      await on.keyboard.press("Tab");
      expect(await on.evaluate("document.activeElement?.name")).toBe("app_id");
      atLeast3("the focus outline", await style(input, "outline-color"), backgrounds);
      const appsLink = navLink(on, "Apps");
      await appsLink.focus();
      await on.keyboard.press("Shift+Tab");
      await on.keyboard.press("Tab");
      atLeast3("the header's focus outline", await style(appsLink, "outline-color"), {
        header: await style(on.getByRole("banner"), "background-color"),
      });
      // The charts' greys (organic, "none (not attributed)", the other sources summed), and
      // every series on the white of the cards the charts are drawn on.
      for (const colour of [ORGANIC_COLOUR, UNATTRIBUTED_COLOUR, OTHER_COLOUR]) {
        atLeast3("a chart's grey", colour, backgrounds);
      }
      for (const colour of PALETTE) {
        atLeast3("a chart's series", colour, { card: backgrounds.card });
      }
    } finally {
      await context.close();
    }
  });

  it("2. creates an Android app through the form (an app id refused beside its input first): it is in the list and in the app picker", async () => {
    await open(page, "/apps");
    await heading(page, "Apps").waitFor();
    // The inputs hold no more than the service takes; what it refuses is said beside the input.
    expect(await page.getByLabel("App id").getAttribute("maxlength")).toBe("255");
    expect(await page.getByLabel("Name", { exact: true }).getAttribute("maxlength")).toBe("200");
    await page.getByLabel("App id").fill("com.example browser");
    await page.getByLabel("Name", { exact: true }).fill(APP_NAME);
    await page.getByRole("button", { name: "Create app" }).click();
    await refusedBeside(
      page.getByLabel("App id"),
      "App id must be a bundle identifier or package name (letters, digits, '.', '_', '-').",
      page.locator("#create-app-error"),
    );
    expect(await page.getByRole("table", { name: "Apps" }).count()).toBe(0);
    await screenshot(page, "apps-refused");

    await page.getByLabel("App id").fill(APP_ID);
    expect(await page.getByLabel("App id").getAttribute("aria-invalid")).toBeNull();
    await page.getByLabel("Name", { exact: true }).fill(APP_NAME);
    await page.getByLabel("Platform").selectOption("android");
    await page.getByRole("button", { name: "Create app" }).click();

    const row = page.getByRole("table", { name: "Apps" }).locator(`tr[data-app-id="${APP_ID}"]`);
    await row.waitFor();
    expect((await row.locator("th, td").allInnerTexts()).slice(0, 4)).toEqual([
      APP_NAME,
      APP_ID,
      "Android",
      "Yes",
    ]);
    await page
      .getByRole("status")
      .filter({ hasText: `Created ${APP_NAME} (${APP_ID}).` })
      .waitFor();
    const stored = await apiGet(owner, `/v1/apps/${APP_ID}`);
    expect(stored).toMatchObject({ status: 200, body: { app: { platform: "android" } } });
    // The button lines up with the inputs beside it, not with their labels.
    const input = await page.getByLabel("App id").boundingBox();
    const button = await page.getByRole("button", { name: "Create app" }).boundingBox();
    expect(Math.abs((button?.y ?? 0) - (input?.y ?? 100))).toBeLessThanOrEqual(1);
    await screenshot(page, "apps");

    // The picker shows once an app is chosen: choosing this one opens its overview.
    await row.getByRole("link", { name: APP_NAME }).click();
    await heading(page, "Overview").waitFor();
    const picker = page.getByLabel("Current app");
    expect(await picker.inputValue()).toBe(APP_ID);
    expect(await picker.locator("option").allInnerTexts()).toContain(`${APP_NAME} (${APP_ID})`);
  });

  it("3. creates an SDK key that the API takes, then revokes it in the page: the API refuses it", async () => {
    await open(page, `/apps/${APP_ID}/overview`);
    // An app that has sent nothing is pointed at its keys and the SDK guide, not left with empty charts.
    const noEvents = page.getByTestId("no-events-hint");
    await noEvents.waitFor(WITHIN);
    expect(await noEvents.innerText()).toContain("docs/sdks.md");
    await noEvents.getByRole("link", { name: "Keys page" }).click();
    await heading(page, "Keys").waitFor();
    // An app made in the dashboard has no key yet.
    await page.getByText("No keys yet.").waitFor();
    await page.getByRole("button", { name: "Create SDK key" }).click();
    const key = await page.getByLabel("New key").inputValue();
    const keyId = keyIdOf(key);
    expect(keyId).toBeDefined();
    const row = page.locator(`tr[data-key-id="${keyId}"]`);
    await row.waitFor();
    expect((await row.locator("td").allInnerTexts()).slice(0, 2)).toEqual([keyId, "SDK"]);
    await screenshot(page, "keys");

    const config = () => fetch(`${rt.url}/v1/config`, { headers: { authorization: key } });
    const before = await config();
    await before.body?.cancel();
    expect(before.status).toBe(200);

    // Cancel gives the focus back to Revoke; once revoked, the row has no button left, and the
    // list's heading has it.
    // Each row's button names its key, for a screen reader's list of the page's buttons.
    await row.getByRole("button", { name: `Revoke key ${keyId}`, exact: true }).click();
    await row
      .getByRole("button", { name: `Confirm revoke of key ${keyId}`, exact: true })
      .waitFor();
    await row.getByRole("button", { name: "Cancel" }).click();
    await expect
      .poll(() => page.evaluate("document.activeElement?.textContent"), WITHIN)
      .toBe("Revoke");
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Confirm revoke" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: `Key ${keyId} revoked.` })
      .waitFor();
    await expect.poll(() => focused(page), WITHIN).toBe("key-list-heading");
    const after = await config();
    await after.body?.cancel();
    expect(after.status).toBe(401);
    // The table says so: a time in the Revoked column, and no Revoke button left.
    expect(await row.locator("td").nth(4).innerText()).toMatch(/^\d{4}-\d{2}-\d{2} .* UTC$/);
    expect(await row.getByRole("button").count()).toBe(0);
  });

  it("3b. copies a new server key with its Copy button: the clipboard holds the key exactly, underscores and all, and the API takes it", async () => {
    await owner.grantPermissions(["clipboard-read", "clipboard-write"], { origin: rt.url });
    await open(page, `/apps/${APP_ID}/keys`);
    await heading(page, "Keys").waitFor();
    await page.getByRole("button", { name: "Create server key" }).click();
    await page.getByRole("heading", { name: "Your new Server key" }).waitFor(WITHIN);
    const field = page.getByLabel("New key");
    const key = await field.inputValue();
    expect(key).toMatch(/^srv_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    // Nothing on the page, the clipboard included, holds anything but the key itself.
    await page.evaluate("navigator.clipboard.writeText('')");
    await page.getByRole("button", { name: "Copy the new key" }).click();
    await page.getByRole("status").filter({ hasText: "Copied the new key." }).waitFor(WITHIN);
    const copied = await page.evaluate<string>("navigator.clipboard.readText()");
    expect(copied).toBe(key);
    expect(copied.split("_").length).toBeGreaterThanOrEqual(3);
    // The underscores are drawn: the field looks otherwise than with spaces in their place. At a
    // fixed height Chromium clipped them (the key read "srv 4753cc…"), and both looked alike.
    const setValue = (value: string) =>
      field.evaluate((input, given) => {
        const element = input as unknown as { value: string; blur(): void };
        element.value = given;
        element.blur();
      }, value);
    await setValue(key);
    const shown = await field.screenshot();
    await setValue(key.replaceAll("_", " "));
    const spaced = await field.screenshot();
    await setValue(key);
    expect(shown.equals(spaced), "the key's underscores are drawn").toBe(false);
    expect(await field.inputValue()).toBe(key);
    // The value pasted from the clipboard is a key the reports take.
    const answer = await fetch(`${rt.url}/v1/reports/link-clicks`, {
      headers: { authorization: copied },
    });
    await answer.body?.cancel();
    expect(answer.status).toBe(200);
    await screenshot(page, "keys-copied");

    // A second key: a field of its own, which says nothing of a copy until it is copied.
    await page.getByRole("button", { name: "Create server key" }).click();
    await expect.poll(() => field.inputValue(), WITHIN).not.toBe(key);
    const second = await field.inputValue();
    expect(second).toMatch(/^srv_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const copiedSaid = page.getByRole("status").filter({ hasText: "Copied the new key." });
    await expect.poll(() => copiedSaid.count(), WITHIN).toBe(0);
    await page.getByRole("button", { name: "Copy the new key" }).click();
    await copiedSaid.waitFor(WITHIN);
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(second);
  });

  it("4. creates a link with its QR code; a phone's tap on it shows as a click", async () => {
    await open(page, `/apps/${APP_ID}/links`);
    await heading(page, "Links").waitFor();
    expect(await page.getByLabel("Campaign name").getAttribute("maxlength")).toBe("200");
    expect(await page.getByLabel("Deep link path").getAttribute("maxlength")).toBe("1000");
    await page.getByLabel("Media source").fill("browser_qr");
    await page.getByLabel("Campaign name").fill("Spring launch");
    // A path the service refuses: said beside its input, and nothing made.
    await page.getByLabel("Deep link path").fill("levels/7");
    await page.getByRole("button", { name: "Create link" }).click();
    await refusedBeside(
      page.getByLabel("Deep link path"),
      "Deep link path must start with /",
      page.locator("#create-link-error"),
    );
    expect(await page.getByLabel("Link URL").count()).toBe(0);
    await page.getByLabel("Deep link path").fill("/levels/7");
    // The ad set, a web destination and a cost, which the service takes all three or none: a
    // price without its currency is refused beside the currency's input, in the form's words.
    await page.getByLabel("Ad set name").fill("Meadow lovers");
    await page.getByLabel("Web URL").fill("https://game.example.com/spring");
    await page.getByLabel("Cost model").selectOption("CPC");
    await page.getByLabel("Cost", { exact: true }).fill("0.4");
    await page.getByRole("button", { name: "Create link" }).click();
    await refusedBeside(
      page.getByLabel("Cost currency"),
      "Cost currency is required with cost model and cost",
      page.locator("#create-link-error"),
    );
    expect(await page.getByLabel("Link URL").count()).toBe(0);
    await page.getByLabel("Cost currency").fill("usd");
    await page.getByRole("button", { name: "Create link" }).click();

    const url = await page.getByLabel("Link URL").inputValue();
    expect(url.startsWith(`${rt.linkUrl}/`)).toBe(true);
    const qr = page.getByRole("img", { name: url, exact: true });
    await qr.waitFor();
    expect(await qr.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    expect(await qr.evaluate((img: { naturalWidth: number }) => img.naturalWidth)).toBeGreaterThan(
      0,
    );
    const { origin, pathname } = new URL(url);
    expect(origin).toBe(rt.linkUrl);
    const deeplinkId = pathname.slice(1);
    madeLink = deeplinkId;
    const row = page.locator(`tr[data-deeplink-id="${deeplinkId}"]`);
    await row.waitFor();
    expect(await row.locator("td").allInnerTexts()).toEqual(
      expect.arrayContaining(["browser_qr", "Spring launch", "/levels/7", "Active\nCPC $0.40"]),
    );
    const { body: made } = await apiGet(owner, `/v1/links/${deeplinkId}?app_id=${APP_ID}`);
    expect(made).toMatchObject({
      adset_name: "Meadow lovers",
      web_url: "https://game.example.com/spring",
      cost_model: "CPC",
      cost_value: 0.4,
      cost_currency: "USD",
    });
    // The form starts again but for the media source, the cost included.
    await expect.poll(() => page.getByLabel("Cost model").inputValue(), WITHIN).toBe("");
    expect(await page.getByLabel("Cost currency").inputValue()).toBe("");
    expect(await page.getByLabel("Media source").inputValue()).toBe("browser_qr");
    await screenshot(page, "links");

    // The URL as the page shows it and its QR code holds, tapped on an Android phone.
    const tap = await fetch(url, {
      redirect: "manual",
      headers: { "user-agent": ANDROID_PHONE },
    });
    await tap.body?.cancel();
    expect(tap.status).toBe(302);
    await rt.flush();

    // The page asked for the clicks when it opened; the report keeps that answer 30 s.
    await expect
      .poll(async () => {
        const { body } = await apiGet(owner, `/v1/reports/link-clicks?app_id=${APP_ID}`);
        const { clicks } = body as { clicks: { deeplink_id: string; clicks: number }[] };
        return clicks.find((entry) => entry.deeplink_id === deeplinkId)?.clicks ?? 0;
      }, PAST_REPORT_CACHE)
      .toBe(1);
    await page.reload();
    await expect.poll(() => row.getByTestId("clicks").innerText(), WITHIN).toBe("1");
  });

  it("4b. changes an existing link's preview and cost: a chat's crawler then shows the preview, an emptied field the app's default", async () => {
    const slackbot = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)";
    const deeplinkId = madeLink;
    expect(deeplinkId).not.toBe("");
    const stored = async () => {
      const { status, body } = await apiGet(owner, `/v1/links/${deeplinkId}?app_id=${APP_ID}`);
      expect(status).toBe(200);
      return body as Record<string, unknown>;
    };
    const unfurled = async () => {
      const response = await fetch(`${rt.linkUrl}/${deeplinkId}`, {
        headers: { "user-agent": slackbot },
      });
      expect(response.status).toBe(200);
      return response.text();
    };
    expect(await unfurled()).toContain(`<meta property="og:title" content="${APP_NAME}">`);

    await open(page, `/apps/${APP_ID}/links`);
    const row = page.locator(`tr[data-deeplink-id="${deeplinkId}"]`);
    // Each button's name begins with the words it shows, and names its link.
    const edit = row.getByRole("button", { name: `Edit link ${deeplinkId}`, exact: true });
    expect(await edit.innerText()).toBe("Edit");
    const disable = row.getByRole("button", { name: `Disable link ${deeplinkId}`, exact: true });
    expect(await disable.innerText()).toBe("Disable");
    const form = page.getByRole("form", { name: `Link ${deeplinkId}` });
    // Cancel gives the focus back to the button that opened the form.
    await edit.click();
    await form.getByRole("button", { name: "Cancel" }).click();
    expect(await form.count()).toBe(0);
    await expect.poll(() => focused(page), WITHIN).toBe(`Edit link ${deeplinkId}`);
    await edit.click();
    const saved = page.getByRole("status").filter({ hasText: `Link ${deeplinkId} saved.` });
    await form.getByLabel("Preview title").fill("Spring launch: level 7 is open");
    await form.getByLabel("Preview description").fill("Race your friends through the meadow.");
    // An http image is the service's to refuse (chats show none on an https page).
    await form.getByLabel("Preview image URL (https)").fill("http://cdn.example.com/spring.png");
    await form.getByRole("button", { name: "Save link" }).click();
    await expect.poll(() => form.getByRole("alert").innerText(), WITHIN).toContain("https");
    await refusedBeside(
      form.getByLabel("Preview image URL (https)"),
      "Preview image URL must be an https URL whose host is a domain name (in punycode: xn--…)",
      form.getByRole("alert"),
    );
    expect((await stored()).preview_title).toBeNull();
    await screenshot(page, "links-preview-refused");

    await form.getByLabel("Preview image URL (https)").fill("https://cdn.example.com/spring.png");
    await form.getByRole("button", { name: "Save link" }).click();
    await saved.waitFor(WITHIN);
    expect(await form.count()).toBe(0);
    // The form gone, the focus is back on the button that opened it.
    await expect.poll(() => focused(page), WITHIN).toBe(`Edit link ${deeplinkId}`);
    expect(await row.locator("td").allInnerTexts()).toEqual(
      expect.arrayContaining(["Active\nown preview\nCPC $0.40"]),
    );
    expect(await stored()).toMatchObject({
      preview_title: "Spring launch: level 7 is open",
      preview_description: "Race your friends through the meadow.",
      preview_image_url: "https://cdn.example.com/spring.png",
    });
    const card = await unfurled();
    expect(card).toContain('<meta property="og:title" content="Spring launch: level 7 is open">');
    expect(card).toContain(
      '<meta property="og:image" content="https://cdn.example.com/spring.png">',
    );
    await screenshot(page, "links-preview");

    // The form starts from what is stored; an emptied title is cleared, the rest stays. The
    // landing page for every tap is switched on here too, and off again; the parameters the web
    // destination is given, off and on again.
    await edit.click();
    expect(await form.getByLabel("Preview title").inputValue()).toBe(
      "Spring launch: level 7 is open",
    );
    const landing = form.getByLabel("Landing page for every tap", { exact: false });
    const forwarding = form.getByLabel("The web destination gets", { exact: false });
    expect(await landing.isChecked()).toBe(false);
    expect(await forwarding.isChecked()).toBe(true);
    await form.getByLabel("Preview title").fill("");
    await landing.check();
    await forwarding.uncheck();
    await form.getByRole("button", { name: "Save link" }).click();
    await saved.waitFor(WITHIN);
    await expect.poll(async () => (await stored()).landing_page, WITHIN).toBe(true);
    expect((await stored()).forward_params).toBe(false);
    expect(await row.innerText()).toContain("no parameters to the web");
    await edit.click();
    expect(await landing.isChecked()).toBe(true);
    expect(await forwarding.isChecked()).toBe(false);
    await landing.uncheck();
    await forwarding.check();
    await form.getByRole("button", { name: "Save link" }).click();
    await saved.waitFor(WITHIN);
    await expect.poll(async () => (await stored()).landing_page, WITHIN).toBe(false);
    expect(await stored()).toMatchObject({
      landing_page: false,
      forward_params: true,
      preview_title: null,
      preview_description: "Race your friends through the meadow.",
      preview_image_url: "https://cdn.example.com/spring.png",
    });
    expect(await unfurled()).toContain(`<meta property="og:title" content="${APP_NAME}">`);

    // The cost: the form starts from the link's, a change is stored, and all three emptied
    // clear it.
    await edit.click();
    expect(await form.getByLabel("Cost model").inputValue()).toBe("CPC");
    expect(await form.getByLabel("Cost", { exact: true }).inputValue()).toBe("0.4");
    expect(await form.getByLabel("Cost currency").inputValue()).toBe("USD");
    await form.getByLabel("Cost model").selectOption("CPI");
    await form.getByLabel("Cost", { exact: true }).fill("2.5");
    await form.getByLabel("Cost currency").fill("EUR");
    await form.getByRole("button", { name: "Save link" }).click();
    await saved.waitFor(WITHIN);
    await expect.poll(async () => (await stored()).cost_model, WITHIN).toBe("CPI");
    expect(await stored()).toMatchObject({ cost_value: 2.5, cost_currency: "EUR" });
    expect(await row.innerText()).toContain("CPI €2.50");
    await edit.click();
    await form.getByLabel("Cost model").selectOption("");
    await form.getByLabel("Cost", { exact: true }).fill("");
    await form.getByLabel("Cost currency").fill("");
    await form.getByRole("button", { name: "Save link" }).click();
    await saved.waitFor(WITHIN);
    await expect.poll(async () => (await stored()).cost_model, WITHIN).toBeNull();
    expect(await stored()).toMatchObject({ cost_value: null, cost_currency: null });
    expect(await row.innerText()).not.toContain("€");

    // Its destinations: a link already shared sent elsewhere, and back to the app's again.
    await edit.click();
    expect(await form.getByLabel("Web URL").inputValue()).toBe((await stored()).web_url ?? "");
    await form.getByLabel("Web URL").fill("https://game.example.com/summer");
    await form.getByRole("button", { name: "Save link" }).click();
    await saved.waitFor(WITHIN);
    await expect
      .poll(async () => (await stored()).web_url, WITHIN)
      .toBe("https://game.example.com/summer");
    await edit.click();
    expect(await form.getByLabel("Web URL").inputValue()).toBe("https://game.example.com/summer");
    await form.getByLabel("Web URL").fill("");
    await form.getByRole("button", { name: "Save link" }).click();
    await saved.waitFor(WITHIN);
    await expect.poll(async () => (await stored()).web_url, WITHIN).toBeNull();

    // Disabled and enabled again from the keyboard: the button keeps the focus under each name.
    await disable.click();
    await page
      .getByRole("status")
      .filter({ hasText: `Link ${deeplinkId} disabled.` })
      .waitFor();
    await expect.poll(() => focused(page), WITHIN).toBe(`Enable link ${deeplinkId}`);
    await page.keyboard.press("Enter");
    await page
      .getByRole("status")
      .filter({ hasText: `Link ${deeplinkId} enabled.` })
      .waitFor();
    await expect.poll(() => focused(page), WITHIN).toBe(`Disable link ${deeplinkId}`);
  });

  it("4c. fits the Links table in its card at 1440 px and at 390 px, a long campaign name and URL cut and whole in their titles; any link's QR code on demand, a link too long for one as its bare link", async () => {
    // The longest campaign name a link takes, with nowhere to break a line.
    const longName = `Spring_launch_${"meadow".repeat(31)}`.slice(0, 200);
    const made = await rt.post(
      `/v1/links?app_id=${APP_ID}`,
      {
        media_source: "browser_long",
        campaign_name: longName,
        // And a URL longer than any QR code holds.
        deep_link_path: `/levels/${"7".repeat(900)}`,
        params: Object.fromEntries(["a", "b", "c", "d"].map((key) => [key, key.repeat(480)])),
      },
      (await issueKey(APP_ID, "server", rt.stores.keys)).key,
    );
    expect(made.status).toBe(201);
    const { deeplink_id: longLink, url: longUrl } = (await made.json()) as {
      deeplink_id: string;
      url: string;
    };

    /** The table within its card: no wider, and every row's buttons inside the card's box. */
    const fitsCard = async (on: Page, what: string) => {
      const table = on.getByRole("table", { name: "Links" });
      await table.waitFor();
      const card = on.locator("section.card").filter({ has: table });
      const widths = await card.evaluate(
        (element: { scrollWidth: number; clientWidth: number }) => ({
          scrollWidth: element.scrollWidth,
          clientWidth: element.clientWidth,
        }),
      );
      expect(widths.scrollWidth, `${what}: the card's content`).toBeLessThanOrEqual(
        widths.clientWidth,
      );
      const cardBox = await card.boundingBox();
      const tableBox = await table.boundingBox();
      if (!cardBox || !tableBox) throw new Error(`${what}: the table is not laid out`);
      expect(tableBox.x + tableBox.width, `${what}: the table's right edge`).toBeLessThanOrEqual(
        cardBox.x + cardBox.width,
      );
      const buttons = await table.getByRole("button", { name: /^(Disable|Enable) link / }).all();
      expect(buttons.length, `${what}: a Disable button a link`).toBeGreaterThanOrEqual(2);
      for (const button of buttons) {
        const box = await button.boundingBox();
        expect(box, `${what}: a Disable button is laid out`).not.toBeNull();
        if (!box) continue;
        expect(box.x, what).toBeGreaterThanOrEqual(cardBox.x);
        expect(box.x + box.width, `${what}: a Disable button`).toBeLessThanOrEqual(
          cardBox.x + cardBox.width,
        );
        // Visible, steady and the element a click at its centre reaches.
        await button.click({ trial: true });
      }
      // The long name: cut to a few lines, the whole of it in its title.
      const cut = table.locator(
        `tr[data-deeplink-id="${longLink}"] td[data-label="Campaign"] .cut`,
      );
      expect(await cut.getAttribute("title")).toBe(longName);
      expect(await cut.textContent()).toBe(longName);
      const cutBox = await cut.boundingBox();
      expect(cutBox?.height ?? 0, `${what}: the long name's height`).toBeLessThan(80);
      // So is the long link's URL.
      const cutUrl = table.locator(`tr[data-deeplink-id="${longLink}"] td[data-label="Link"] .cut`);
      expect(await cutUrl.getAttribute("title")).toBe(longUrl);
      const urlBox = await cutUrl.boundingBox();
      expect(urlBox?.height ?? 0, `${what}: the long link's height`).toBeLessThan(80);
    };

    const wide = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      reducedMotion: "reduce",
      storageState: await owner.storageState(),
    });
    try {
      const on = await wide.newPage();
      await open(on, `/apps/${APP_ID}/links`);
      await heading(on, "Links").waitFor();
      await fitsCard(on, "1440 px");
      await screenshot(on, "links-1440");

      // With the keyboard's focus on a control of its row, the long name shows whole: no
      // mouse is needed to read it.
      const longRow = on.locator(`tr[data-deeplink-id="${longLink}"]`);
      const longName = longRow.locator('td[data-label="Campaign"] .cut');
      await longRow.getByRole("button", { name: `QR code of link ${longLink}` }).focus();
      await on.keyboard.press("Shift+Tab");
      await on.keyboard.press("Tab");
      await expect
        .poll(async () => (await longName.boundingBox())?.height ?? 0, WITHIN)
        .toBeGreaterThan(80);
      expect(
        await longName.evaluate(
          (element: { scrollHeight: number; clientHeight: number }) =>
            element.scrollHeight <= element.clientHeight,
        ),
      ).toBe(true);
      await screenshot(on, "links-1440-focused");

      // The QR code of a link listed, not one just made: shown under its row, and hidden again.
      const row = on.locator(`tr[data-deeplink-id="${madeLink}"]`);
      const url = await row.locator("td").first().innerText();
      const qrButton = row.getByRole("button", { name: `QR code of link ${madeLink}` });
      expect(await qrButton.innerText()).toBe("QR");
      expect(await qrButton.getAttribute("aria-expanded")).toBe("false");
      await qrButton.click();
      const qr = on.getByRole("img", { name: `QR code of ${url}`, exact: true });
      await qr.waitFor(WITHIN);
      expect(await qrButton.getAttribute("aria-expanded")).toBe("true");
      expect(await qr.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
      expect(
        await qr.evaluate((img: { naturalWidth: number }) => img.naturalWidth),
      ).toBeGreaterThan(0);
      // Under its own row, the controlled element.
      const controlled = await qrButton.getAttribute("aria-controls");
      expect(await on.locator(`[id="${controlled}"]`).getAttribute("data-qr-for")).toBe(madeLink);
      // The other link's too, each its own.
      await on
        .locator(`tr[data-deeplink-id="${longLink}"]`)
        .getByRole("button", { name: `QR code of link ${longLink}` })
        .click();
      // Too long for a QR code: it holds the bare link, and says so.
      const bare = new URL(longUrl);
      bare.search = "";
      await on.getByRole("img", { name: `QR code of ${bare.href}`, exact: true }).waitFor(WITHIN);
      expect(
        await on.locator(`[data-qr-for="${longLink}"]`).getByText("too long for a QR code").count(),
      ).toBe(1);
      await fitsCard(on, "1440 px, QR codes shown");
      await screenshot(on, "links-qr");
      await qrButton.click();
      await expect.poll(() => qr.count(), WITHIN).toBe(0);
      expect(await qrButton.getAttribute("aria-expanded")).toBe("false");
    } finally {
      await wide.close();
    }

    const phone = await browser.newContext({
      viewport: PHONE,
      reducedMotion: "reduce",
      storageState: await owner.storageState(),
    });
    try {
      const on = await phone.newPage();
      await open(on, `/apps/${APP_ID}/links`);
      await heading(on, "Links").waitFor();
      await fitsCard(on, "390 px");
      const { scrollWidth, innerWidth } = await documentWidth(on);
      expect(scrollWidth, "the Links page at 390 px").toBeLessThanOrEqual(innerWidth);
      await screenshot(on, "links-390");
    } finally {
      await phone.close();
    }
  });

  it("4d. lists more than a page of links: Load more pressed twice while its page is on its way lists each link once", async () => {
    const manyApp = "com.example.browser.many";
    const { serverKey } = await rt.createApp(manyApp, "android");
    const count = 205;
    for (let start = 0; start < count; start += 25) {
      const made = await Promise.all(
        Array.from({ length: Math.min(25, count - start) }, (_, i) =>
          rt.post(
            `/v1/links?app_id=${manyApp}`,
            { media_source: "browser_many", campaign_name: `Many ${start + i}` },
            serverKey,
          ),
        ),
      );
      expect(made.map((answer) => answer.status)).toEqual(made.map(() => 201));
    }
    await open(page, `/apps/${manyApp}/links`);
    await heading(page, "Links").waitFor();
    const rows = page.getByRole("table", { name: "Links" }).locator("tr[data-deeplink-id]");
    await expect.poll(() => rows.count(), WITHIN).toBe(200);

    // The next page held until both presses are in.
    const nextPage = await holdRequests(page, "**/v1/links?*cursor=*", "GET");
    const more = page.getByRole("button", { name: "Load more links" });
    await more.click();
    // On its way, and held: the second press comes while it is.
    await expect.poll(() => nextPage.held(), WITHIN).toBe(1);
    // Marked busy by then (aria-disabled), which a press still reaches.
    await more.click({ force: true });
    await nextPage.release();
    await expect.poll(() => rows.count(), WITHIN).toBe(count);
    await expect.poll(() => more.count(), WITHIN).toBe(0);
    // The button went with the last page, and the focus it had to the list's heading.
    await expect.poll(() => focused(page), WITHIN).toBe("link-list-heading");
    expect(nextPage.held()).toBe(1);
    const ids = await rows.evaluateAll((found) =>
      found.map((row) => row.getAttribute("data-deeplink-id")),
    );
    expect(new Set(ids).size).toBe(count);
  });

  it("4e. steps through the app picker with the keyboard, opening no app until Enter", async () => {
    // The app's settings, which the shell asks for as it loads, are held until the person has
    // stepped: their answer draws the shell again, which must leave the step where it is.
    const settingsOf = (url: URL) => url.pathname === `/v1/apps/${APP_ID}`;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked = false;
    const answering: Promise<void>[] = [];
    await page.route(settingsOf, (route) => {
      asked = true;
      const answer = held.then(() => route.continue());
      answering.push(answer);
      return answer;
    });
    const picker = page.getByLabel("Current app");
    try {
      await page.goto("about:blank");
      await open(page, `/apps/${APP_ID}/overview`);
      await heading(page, "Overview").waitFor();
      await expect.poll(() => picker.locator("option").count(), WITHIN).toBeGreaterThan(1);
      await expect.poll(() => asked, WITHIN).toBe(true);
      await picker.focus();
      // A step down, or up from the last app: another app named, none opened.
      await page.keyboard.press("ArrowDown");
      if ((await picker.inputValue()) === APP_ID) await page.keyboard.press("ArrowUp");
      const stepped = await picker.inputValue();
      expect(stepped).not.toBe(APP_ID);
      const answered = page.waitForResponse((response) => settingsOf(new URL(response.url())));
      release();
      await (await answered).finished();
      // Two frames for the page to read the answer and draw the shell again.
      await page.evaluate(
        "new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(drawn)))",
      );
      expect(await picker.inputValue()).toBe(stepped);
      expect(decodeURIComponent(page.url())).toContain(`/apps/${APP_ID}/overview`);
      await page.keyboard.press("Enter");
      await expect
        .poll(() => decodeURIComponent(page.url()), WITHIN)
        .toContain(`/apps/${stepped}/overview`);
    } finally {
      release();
      await Promise.all(answering);
      await page.unroute(settingsOf);
    }
    // Chosen as a pointer would: opened at once.
    await picker.selectOption(APP_ID);
    await expect
      .poll(() => decodeURIComponent(page.url()), WITHIN)
      .toContain(`/apps/${APP_ID}/overview`);
  });

  it("5. shows the overview of demo traffic with the export's totals, charts and a sortable campaign table, each table downloadable as CSV", async () => {
    demo = await driveDemoTraffic(rt, { days: 3, installs: 150, seed: 5 });
    // The UTC days of the traffic, from its end (now) back: four of them for three days'.
    range = demo.days;
    await rt.flush();
    const { appId, serverKey, outcome } = demo;
    const expected = await exportTotals(rt.url, serverKey, appId, range);
    // Every install the demo made is in the lake, and so in the window (an Android app's: no
    // reinstall is told apart).
    expect(expected.installs + expected.reinstalls).toBe(outcome.installs);
    expect(expected.events).toBeGreaterThan(expected.installs);
    expect(expected.revenueUsd).toBeGreaterThan(0);

    await open(page, `/apps/${appId}/overview`);
    await heading(page, "Overview").waitFor();
    // Made outside the page since its app list was read: the list is read again for its name.
    const picker = page.getByLabel("Current app");
    await expect
      .poll(() => picker.locator("option:checked").innerText(), WITHIN)
      .toBe(`${demo.appName} (${appId})`);
    await page.getByLabel("From").fill(range.from);
    await page.getByLabel("To", { exact: true }).fill(range.to);
    await page
      .getByRole("status")
      .filter({ hasText: `Showing ${range.from} to ${range.to}.` })
      .waitFor();

    const total = (name: string) => page.getByTestId(`total-${name}`);
    const figure = async (name: string) => Number(await total(name).getAttribute("data-value"));
    expect(await figure("installs")).toBe(expected.installs);
    expect(await figure("reinstalls")).toBe(expected.reinstalls);
    expect(await figure("events")).toBe(expected.events);
    expect(await figure("revenue")).toBeCloseTo(expected.revenueUsd, 2);
    expect(countOf(await total("installs").innerText())).toBe(expected.installs);
    expect(countOf(await total("events").innerText())).toBe(expected.events);
    expect(await figure("paid")).toBeGreaterThan(0);
    expect(await figure("organic")).toBeGreaterThan(0);
    expect(await page.getByTestId("no-events-hint").count()).toBe(0);

    // Six charts, each drawn on a canvas of some size.
    const charts = page.locator("figure.chart");
    expect(await charts.count()).toBe(6);
    for (const chart of await charts.all()) {
      const box = await chart.locator("canvas").boundingBox();
      expect(box?.width).toBeGreaterThan(100);
      expect(box?.height).toBeGreaterThan(100);
    }

    const campaigns = page.getByRole("table", { name: "Campaigns" });
    const rows = campaigns.locator("tbody tr");
    expect(await rows.count()).toBeGreaterThan(2);
    const header = (name: string) =>
      campaigns.locator("th").filter({ has: page.getByRole("button", { name, exact: true }) });
    const sortBy = (name: string) =>
      header(name).getByRole("button", { name, exact: true }).click();
    expect(await header("Installs").getAttribute("aria-sort")).toBe("descending");
    const installsOf = async () => (await cellTexts(rows, 2)).map(countOf);
    // The campaigns' reinstalls add up to the range's.
    expect((await cellTexts(rows, 3)).map(countOf).reduce((sum, n) => sum + n, 0)).toBe(
      await figure("reinstalls"),
    );
    const descending = await installsOf();
    expect(descending).toEqual([...descending].sort((a, b) => b - a));
    expect(new Set(descending).size, "campaigns with different installs").toBeGreaterThan(1);

    await sortBy("Installs");
    await expect.poll(() => header("Installs").getAttribute("aria-sort"), WITHIN).toBe("ascending");
    const ascending = await installsOf();
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    expect(ascending).not.toEqual(descending);

    await sortBy("Media source");
    await expect
      .poll(() => header("Media source").getAttribute("aria-sort"), WITHIN)
      .toBe("ascending");
    expect(await header("Installs").getAttribute("aria-sort")).toBeNull();
    const sources = await cellTexts(rows, 0);
    expect(sources).toEqual([...sources].sort((a, b) => a.localeCompare(b)));

    // Each table's CSV holds it as shown, in its order, cell for cell (RFC 4180, as the
    // Cohorts page's), under its columns' names.
    const downloaded = async (button: string) => {
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: button, exact: true }).click(),
      ]);
      const text = await readFile(await download.path(), "utf8");
      expect(text.startsWith("\uFEFF")).toBe(true);
      expect(text.endsWith("\r\n")).toBe(true);
      return { name: download.suggestedFilename(), rows: parseCsv(text.slice(1)) };
    };
    const bodyTexts = async (table: Locator) =>
      Promise.all(
        (await table.locator("tbody tr").all()).map((row) => row.locator("th, td").allInnerTexts()),
      );
    const campaignsCsv = await downloaded("Download CSV of the campaign table");
    expect(campaignsCsv.name).toBe(`${appId}_campaigns_${range.from}_${range.to}.csv`);
    expect(campaignsCsv.rows).toEqual([
      [
        "Media source",
        "Campaign",
        "Installs",
        "Reinstalls",
        "Events",
        "Revenue USD",
        "Revenue per install in range",
      ],
      ...(await bodyTexts(campaigns)),
    ]);
    expect(campaignsCsv.rows.length).toBe((await rows.count()) + 1);
    const deepLinks = page.getByRole("table", { name: "Deep link paths" });
    expect(await deepLinks.locator("tbody tr").count()).toBeGreaterThan(0);
    const deepLinksCsv = await downloaded("Download CSV of the deep link paths");
    expect(deepLinksCsv.name).toBe(`${appId}_deep-link-paths_${range.from}_${range.to}.csv`);
    expect(deepLinksCsv.rows).toEqual([
      await deepLinks.locator("thead th").allInnerTexts(),
      ...(await bodyTexts(deepLinks)),
    ]);

    // The ratio is named for what it is: the range's revenue over the range's installs.
    expect(await header("Revenue per install").count()).toBe(0);
    const perInstall = "Revenue per install in range";
    expect(await header(perInstall).count()).toBe(1);
    for (const row of await rows.all()) {
      const cells = await row.locator("td").allInnerTexts();
      const [installs, revenue, ratio] = [cells[2], cells[5], cells[6]].map((text) =>
        countOf(text ?? ""),
      );
      if (installs === undefined || revenue === undefined || ratio === undefined) continue;
      if (installs === 0) expect(cells[6]).toBe("—");
      else expect(ratio).toBeCloseTo(revenue / installs, 1);
    }

    // Each figure's definition one click away, in words, and away again.
    const explain = async (name: string, words: RegExp) => {
      const toggle = page.getByRole("button", { name: `What ${name} means`, exact: true });
      expect(await toggle.getAttribute("aria-expanded")).toBe("false");
      const definition = page.locator(`[id="${await toggle.getAttribute("aria-controls")}"]`);
      expect(await definition.isVisible()).toBe(false);
      await toggle.click();
      expect(await toggle.getAttribute("aria-expanded")).toBe("true");
      expect(await definition.isVisible()).toBe(true);
      expect(await definition.innerText()).toMatch(words);
      return { toggle, definition };
    };
    const ratio = await explain(
      `${perInstall} (campaigns)`,
      /divided by its installs in the range/,
    );
    expect(await ratio.definition.innerText()).toMatch(/earlier days counts too/);
    await explain("Installs", /first open falls on a day of the range/);
    await explain("Revenue USD", /converted to US dollars/);
    await explain("Installs by match status", /Matched \(no deep link\)/);
    await screenshot(page, "overview-definitions");
    await ratio.toggle.click();
    expect(await ratio.definition.isVisible()).toBe(false);

    // Statuses, methods and events in words: none as the service stores it.
    const main = await page.getByRole("main").innerText();
    expect(main).not.toMatch(/service_|matched_no_params|\bgeo\b|\bpending\b/);
    const breakdown = async (caption: string) =>
      cellTexts(
        page
          .getByRole("table")
          .filter({ has: page.locator("caption", { hasText: caption }) })
          .locator("tbody tr"),
        0,
      );
    const statuses = await breakdown("Installs by match status");
    expect(statuses.length).toBeGreaterThan(1);
    expect(
      statuses.every((word) =>
        [
          "Matched (with deep link)",
          "Matched (no deep link)",
          "Organic",
          "Waiting for attribution",
          "Not attributed (attribution off)",
        ].includes(word),
      ),
      statuses.join(", "),
    ).toBe(true);
    const methods = await breakdown("Installs by match method");
    expect(methods).toContain("Click id or advertising id");
    expect(
      methods.some((word) => word.includes("_")),
      methods.join(", "),
    ).toBe(false);
    const events = (
      await page
        .getByRole("table")
        .filter({ has: page.locator("caption", { hasText: "Events per day by event name" }) })
        .locator("thead th")
        .allInnerTexts()
    ).slice(1);
    expect(events).toContain("Install");
    expect(events).toContain("Purchase");
    await screenshot(page, "overview-1280");
  });

  it("5b. refuses a future date, a start after the end and a range over 366 days at the date inputs, in words beside them, the old figures cleared", async () => {
    const { appId } = demoApp();
    const reports: number[] = [];
    const answered = (response: { url(): string; status(): number }) => {
      if (response.url().includes("/v1/reports/overview")) reports.push(response.status());
    };
    page.on("response", answered);
    await open(page, `/apps/${appId}/overview`);
    await heading(page, "Overview").waitFor();
    const from = page.getByLabel("From");
    const to = page.getByLabel("To", { exact: true });
    const reason = page.locator("#range-error");
    const installs = page.getByTestId("total-installs");
    const showing = page.getByRole("status").filter({ hasText: /^Showing / });
    const today = new Date().toISOString().slice(0, 10);
    const dayAfter = (day: string, days: number) =>
      new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
    const shown = async () => {
      await from.fill(range.from);
      await to.fill(range.to);
      await installs.waitFor(WITHIN);
      expect(await reason.innerText()).toBe("");
      expect(await from.getAttribute("aria-invalid")).toBeNull();
      expect(await to.getAttribute("aria-invalid")).toBeNull();
    };
    /** The range refused at its inputs: the reason beside them, and no figures of any range. */
    const refused = async (words: RegExp, invalid: { from: boolean; to: boolean }) => {
      await expect.poll(() => reason.innerText(), WITHIN).toMatch(words);
      expect(await reason.getAttribute("role")).toBe("alert");
      expect(await from.getAttribute("aria-invalid")).toBe(invalid.from ? "true" : null);
      expect(await to.getAttribute("aria-invalid")).toBe(invalid.to ? "true" : null);
      for (const input of [from, to]) {
        expect(await input.getAttribute("aria-describedby")).toBe("range-error");
      }
      expect(await installs.count()).toBe(0);
      expect(await page.getByRole("table", { name: "Campaigns" }).count()).toBe(0);
      expect(await showing.count()).toBe(0);
      expect(await page.getByRole("main").innerText()).not.toMatch(/must be|`from`|`to`/);
    };

    // No day after today can be picked.
    expect(await to.getAttribute("max")).toBe(today);
    expect(await from.getAttribute("max")).toBe(today);

    await shown();
    await to.fill(dayAfter(today, 1));
    await refused(/^The end date is in the future\. The latest day with figures is today, /, {
      from: false,
      to: true,
    });
    await screenshot(page, "overview-range-future");

    await shown();
    await from.fill(range.to);
    await to.fill(dayAfter(range.to, -1));
    await refused(/^The start date is after the end date\./, { from: true, to: true });

    await shown();
    await from.fill(dayAfter(range.to, -400));
    await refused(/^This range is 401 days long; a range may be at most 366 days\./, {
      from: true,
      to: true,
    });
    await screenshot(page, "overview-range-too-long");

    // A range of 366 days is one the report takes.
    await from.fill(dayAfter(range.to, -365));
    await installs.waitFor(WITHIN);
    expect(await reason.innerText()).toBe("");
    // The page asked the report for no range it refused.
    page.off("response", answered);
    expect(reports.length).toBeGreaterThan(0);
    expect(
      reports.every((status) => status === 200),
      reports.join(", "),
    ).toBe(true);
  });

  it("5c. shows the cohorts of a seeded world as the report gives them: filters and grouping kept in the address, — for days not reached, CSV files equal to their tables, no sideways scrolling", async () => {
    cohorts = await seedCohortWorld(rt);
    await rt.flush();
    const { appId, days } = cohorts;
    const window = `from=${days.first}&to=${days.today}`;
    const report = async (query = "") =>
      (await apiGet(owner, `/v1/reports/cohorts?app_id=${appId}&${window}${query}`))
        .body as CohortAnswer;

    // The world as the service counts it (support/cohort-world.ts).
    const all = await report();
    expect(all.totals).toMatchObject({
      installs: 10,
      clicks: 12,
      cost_usd: 30,
      // Over the six paid installs: the organic ones cost nothing.
      ecpi_usd: 5,
      revenue_usd: 24.97,
      retention: { d1: 0.4, d7: null, d30: null },
      roas: { d0: 0.666, d7: null, d30: null },
      // Day 0's 19.98 USD over the 10 installs, whose install days both reached it.
      arpu: { d0: 1.998, d7: null, d30: null },
      // Two of the 10 bought on their install day; the third's day 1 purchase is of no day 7.
      paying_user_rate: { d0: 0.2, d7: null, d30: null },
    });
    expect(all.cost_rows_unconverted).toBe(1);
    const paid = await report(`&media_source=${COHORT_NETWORK}`);
    expect(paid.totals).toMatchObject({ installs: 6, cost_usd: 30, ecpi_usd: 5 });
    expect(paid.totals.retention.d1).toBe(0.5);
    // Active users by day: D's 8 installs, 4 on D+1, D+2's 2 new ones and 2 of D's, 1 yesterday
    // and 1 today: today is shown as it stands, and left out of the average, as it is not over.
    expect(all.active_users).toEqual({
      range: 10,
      average_daily: 4.25,
      daily: [
        { day: days.first, active: 8 },
        { day: dayBefore(days.second, 1), active: 4 },
        { day: days.second, active: 4 },
        { day: dayBefore(days.today, 1), active: 1 },
        { day: days.today, active: 1 },
      ],
    });
    expect(paid.active_users).toMatchObject({ range: 6, average_daily: 3 });

    await open(page, `/apps/${appId}/overview`);
    await heading(page, "Overview").waitFor();
    await navLink(page, "Cohorts").click();
    await heading(page, "Cohorts").waitFor();
    await page.getByLabel("From").fill(days.first);
    await page.getByLabel("To", { exact: true }).fill(days.today);
    const showing = (words: string) =>
      page
        .getByRole("status")
        .filter({ hasText: `Showing ${days.first} to ${days.today}${words}.` })
        .waitFor(WITHIN);
    await showing("");

    const figure = (name: string) => page.getByTestId(`cohort-${name}`);
    /** Each card's text, and its value the report's own (none for a figure not known). */
    const cards = async (answer: CohortAnswer, texts: Record<string, string>) => {
      const values: Record<string, number | null> = {
        impressions: answer.totals.impressions,
        clicks: answer.totals.clicks,
        conversion: answer.totals.conversion_rate,
        installs: answer.totals.installs,
        cost: answer.totals.cost_usd,
        ecpi: answer.totals.ecpi_usd,
        revenue: answer.totals.revenue_usd,
        arpu: answer.totals.arpu_usd,
        "arpu-d0": answer.totals.arpu.d0,
        "arpu-d7": answer.totals.arpu.d7,
        "arpu-d30": answer.totals.arpu.d30,
        "paying-d0": answer.totals.paying_user_rate.d0,
        "paying-d7": answer.totals.paying_user_rate.d7,
        "paying-d30": answer.totals.paying_user_rate.d30,
        "retention-d1": answer.totals.retention.d1,
        "retention-d7": answer.totals.retention.d7,
        "retention-d30": answer.totals.retention.d30,
        "roas-d0": answer.totals.roas.d0,
        "roas-d7": answer.totals.roas.d7,
        "roas-d30": answer.totals.roas.d30,
      };
      for (const [name, value] of Object.entries(values)) {
        const shown = await figure(name).getAttribute("data-value");
        expect(shown === null ? null : Number(shown), name).toBe(value);
      }
      for (const [name, text] of Object.entries(texts)) {
        expect(await figure(name).innerText(), name).toBe(text);
      }
    };
    await cards(all, {
      impressions: "0",
      clicks: "12",
      conversion: "50.0%",
      installs: "10",
      cost: "$30.00",
      ecpi: "$5.00",
      revenue: "$24.97",
      arpu: "$2.50",
      "arpu-d0": "$2.00",
      "arpu-d7": "—",
      "arpu-d30": "—",
      "paying-d0": "20.0%",
      "paying-d7": "—",
      "paying-d30": "—",
      "retention-d1": "40.0%",
      "retention-d7": "—",
      "retention-d30": "—",
      "roas-d0": "66.6%",
      "roas-d7": "—",
      "roas-d30": "—",
    });
    /** The active users' cards and daily chart: the report's figures, and their texts. */
    const activeUsers = async (answer: CohortAnswer, range: string, average: string) => {
      expect(Number(await figure("active-users").getAttribute("data-value"))).toBe(
        answer.active_users.range,
      );
      expect(await figure("active-users").innerText()).toBe(range);
      expect(Number(await figure("average-dau").getAttribute("data-value"))).toBe(
        answer.active_users.average_daily,
      );
      expect(await figure("average-dau").innerText()).toBe(average);
      const daily = page.getByRole("figure", { name: "Daily active users", exact: true });
      const rows = await Promise.all(
        (await daily.locator("tbody tr").all()).map((row) =>
          row.locator("th, td").allTextContents(),
        ),
      );
      expect(rows).toEqual(
        answer.active_users.daily.map(({ day, active }) => [day, String(active)]),
      );
    };
    await activeUsers(all, "10", "4.3");
    await page.getByRole("button", { name: "What Active users means", exact: true }).click();
    expect(await page.locator("#cohort-active-users-definition").innerText()).toMatch(
      /at least once in the range.*counted once however many days.*whatever day it was installed on/,
    );
    expect(await page.getByTestId("cost-unconverted").innerText()).toBe(
      "1 cost row of this range is left out of the cost: no rate of its day converts its currency to US dollars.",
    );
    // A figure not reached says why, beside its "—" and in its definition.
    const d7 = page.getByRole("region", { name: "Retention D7", exact: true });
    expect(await d7.locator(".note").innerText()).toBe("No install day has reached day 7 yet.");
    const explain = page.getByRole("button", { name: "What Retention D7 means", exact: true });
    await explain.click();
    const definition = page.locator(`[id="${await explain.getAttribute("aria-controls")}"]`);
    expect(await definition.innerText()).toMatch(
      /session .* on the 7th calendar day after their install day, in the app.s time zone.*— while no install day of the range has reached day 7/,
    );
    await page.getByRole("button", { name: "What eCPI means", exact: true }).click();
    expect(await page.locator("#cohort-ecpi-definition").innerText()).toMatch(
      /cost divided by the paid installs/,
    );
    await screenshot(page, "cohorts-1280");

    // The table by media source and campaign: the report's groups, then the total.
    const groups = page.getByTestId("cohort-groups");
    const tableTexts = async (table: Locator) =>
      Promise.all(
        (await table.locator("tr").all()).map((row) => row.locator("th, td").allInnerTexts()),
      );
    const byCampaign = await tableTexts(groups);
    expect(byCampaign[0]?.slice(0, 3)).toEqual(["Media source", "Campaign", "Impressions"]);
    expect(byCampaign.slice(1, -1).map((row) => row.slice(0, 2))).toEqual(
      all.groups.map((row) => [row.media_source, row.group ?? "(none)"]),
    );
    const campaignRow = byCampaign.find((row) => row[0] === COHORT_NETWORK);
    expect(campaignRow).toEqual([
      COHORT_NETWORK,
      COHORT_CAMPAIGN,
      "0",
      "12",
      "6",
      "50.0%",
      "$30.00",
      "$5.00",
      "$24.97",
      "$4.16",
      "$3.33",
      "—",
      "—",
      "33.3%",
      "—",
      "—",
      "50.0%",
      "—",
      "—",
      "66.6%",
      "—",
      "—",
    ]);
    expect(byCampaign.at(-1)?.slice(0, 5)).toEqual(["Total", "", "0", "12", "10"]);

    // A filter changes every figure, and the address keeps it over a reload.
    await page.getByLabel("Media source", { exact: true }).selectOption(COHORT_NETWORK);
    await showing(`: media source ${COHORT_NETWORK}`);
    await cards(paid, {
      installs: "6",
      conversion: "50.0%",
      cost: "$30.00",
      ecpi: "$5.00",
      arpu: "$4.16",
      "retention-d1": "50.0%",
    });
    await activeUsers(paid, "6", "3");
    expect(new URL(page.url()).hash).toBe(
      `#/apps/${appId}/cohorts?${window}&media_source=${COHORT_NETWORK}`,
    );
    expect((await tableTexts(groups)).length, "one campaign, and the total").toBe(3);
    await page.reload();
    await heading(page, "Cohorts").waitFor();
    await showing(`: media source ${COHORT_NETWORK}`);
    expect(await page.getByLabel("Media source", { exact: true }).inputValue()).toBe(
      COHORT_NETWORK,
    );
    expect(await page.getByLabel("From").inputValue()).toBe(days.first);
    expect(await figure("installs").innerText()).toBe("6");
    expect(await figure("ecpi").innerText()).toBe("$5.00");
    // The campaigns offered are the media source's (their own request, which may answer after
    // the figures').
    await expect
      .poll(
        () => page.getByLabel("Campaign", { exact: true }).locator("option").allInnerTexts(),
        WITHIN,
      )
      .toEqual(["All campaigns", COHORT_CAMPAIGN]);
    await expect
      .poll(
        () => page.getByLabel("Platform", { exact: true }).locator("option").allInnerTexts(),
        WITHIN,
      )
      .toEqual(["All platforms", "Android", "iOS"]);
    // The countries of the range's installs and touches (the clicks' address is in AU).
    const countries = (await report("&group_by=country")).groups.flatMap((row) =>
      row.group === null ? [] : [row.group],
    );
    expect(countries).toEqual(expect.arrayContaining(["DE", "US"]));
    const country = page.getByLabel("Country", { exact: true });
    expect(
      await country
        .locator("option")
        .evaluateAll((options) =>
          options.map((option) => (option as unknown as { value: string }).value),
        ),
    ).toEqual(["", ...[...new Set(countries)].sort()]);
    expect(await country.locator("option").allInnerTexts()).toEqual(
      expect.arrayContaining(["All countries", "DE (Germany)", "US (United States)"]),
    );

    // A platform of the network's installs: their figures, its cost not known (cost rows name none).
    await page.getByLabel("Platform", { exact: true }).selectOption("android");
    await showing(`: media source ${COHORT_NETWORK}, platform Android`);
    expect(await figure("installs").innerText()).toBe("6");
    expect(await figure("cost").innerText()).toBe("—");
    const costCard = page.getByRole("region", { name: "Cost", exact: true });
    // What the range's installs earned, named apart from the overview's revenue of the range's events.
    expect(await page.getByRole("region", { name: "Cohort revenue", exact: true }).count()).toBe(1);
    expect(await costCard.locator(".note").innerText()).toBe(
      "Cost rows name no platform, so with any of these installs' media source and campaign in this range one platform's cost is not known; without them, no link or click of these installs carried a cost.",
    );
    // Its definition says where cost comes from, which source wins, and when it is not known.
    await costCard.getByRole("button", { name: "What Cost means", exact: true }).click();
    expect(await page.locator("#cohort-cost-definition").innerText()).toMatch(
      /^What the range's days cost.*Cost rows: .*POST \/v1\/costs.*CPI, the price of each install .* on the install's day; CPC, the price of each click, and CPM, a thousandth of the price of each impression.*A cost row replaces the carried cost of what it names.*With a platform filter, — whenever the range has any cost row/,
    );

    // Group by changes the table: every platform's row, the filters cleared.
    await page.getByRole("button", { name: "Clear filters" }).click();
    await showing("");
    await page.getByLabel("Group by", { exact: true }).selectOption("platform");
    await page.getByRole("heading", { name: "By media source and platform" }).waitFor(WITHIN);
    const byPlatform = await report("&group_by=platform");
    const platformTable = await tableTexts(groups);
    expect(platformTable[0]?.slice(0, 2)).toEqual(["Media source", "Platform"]);
    // Media source, platform, installs.
    expect(platformTable.slice(1, -1).map((row) => [row[0], row[1], row[4]])).toEqual(
      byPlatform.groups.map((row) => [
        row.media_source,
        row.group === "ios" ? "iOS" : row.group === "android" ? "Android" : row.group,
        String(row.installs),
      ]),
    );
    expect(platformTable.slice(1, -1).map((row) => [row[1], row[4]])).toEqual([
      ["Android", "6"],
      ["Android", "2"],
      ["iOS", "2"],
    ]);
    expect(new URL(page.url()).hash).toBe(`#/apps/${appId}/cohorts?${window}&group_by=platform`);

    // The groups table's CSV holds the numbers shown, cell for cell.
    const csvOf = async (button: string) => {
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("button", { name: button, exact: true }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/\.csv$/);
      const text = await readFile(await download.path(), "utf8");
      expect(text.startsWith("\uFEFF")).toBe(true);
      expect(text.endsWith("\r\n")).toBe(true);
      return parseCsv(text.slice(1));
    };
    expect(await csvOf("Download CSV of the table by media source and platform")).toEqual(
      await tableTexts(groups),
    );

    // The cohort table: install days by day since install, "—" for a day not reached.
    const cohortTable = page.getByTestId("cohort-table");
    const retention = await tableTexts(cohortTable);
    expect(retention).toEqual([
      ["Install day", "Installs", "Day 0", "Day 1", "Day 2", "Day 3", "Day 7", "Day 14", "Day 30"],
      [days.first, "8", "100.0%", "50.0%", "25.0%", "12.5%", "—", "—", "—"],
      [days.second, "2", "100.0%", "0.0%", "—", "—", "—", "—", "—"],
      ["All install days", "10", "100.0%", "40.0%", "25.0%", "12.5%", "—", "—", "—"],
    ]);
    expect(await csvOf("Download CSV of the cohort table")).toEqual(retention);

    await page.getByRole("button", { name: "Revenue per user (cumulative)" }).click();
    await expect
      .poll(() => tableTexts(cohortTable), WITHIN)
      .toEqual([
        [
          "Install day",
          "Installs",
          "Day 0",
          "Day 1",
          "Day 2",
          "Day 3",
          "Day 7",
          "Day 14",
          "Day 30",
        ],
        [days.first, "8", "$2.50", "$3.12", "$3.12", "$3.12", "—", "—", "—"],
        [days.second, "2", "$0.00", "$0.00", "—", "—", "—", "—", "—"],
        ["All install days", "10", "$2.00", "$2.50", "$3.12", "$3.12", "—", "—", "—"],
      ]);
    expect(new URL(page.url()).hash).toContain("&view=revenue");
    expect(await csvOf("Download CSV of the cohort table")).toEqual(await tableTexts(cohortTable));

    // The retention curve: the installs of every install day that reached each day.
    const curve = page.getByRole("figure", { name: "Retention by day since install" });
    const box = await curve.locator("canvas").boundingBox();
    expect(box?.width).toBeGreaterThan(100);
    const points = await Promise.all(
      (await curve.locator("tbody tr").all()).map((row) => row.locator("th, td").allTextContents()),
    );
    expect(points.slice(0, 4)).toEqual([
      ["Day 0", "100.0%", "10"],
      ["Day 1", "40.0%", "10"],
      ["Day 2", "25.0%", "8"],
      ["Day 3", "12.5%", "8"],
    ]);
    expect(points[4]).toEqual(["Day 4", "—", "—"]);
    await screenshot(page, "cohorts-platform-revenue");

    // No installs in a range: a sentence that says so, and what the figures need.
    await page.getByLabel("From").fill(dayBefore(days.first, 20));
    await page.getByLabel("To", { exact: true }).fill(dayBefore(days.first, 10));
    const empty = page.getByTestId("cohorts-empty");
    await empty.waitFor(WITHIN);
    expect(await empty.innerText()).toMatch(
      /^No installs in this range, so there is nothing to show\. .*POST \/v1\/sessions.*POST \/v1\/costs or the CLI's attribution costs import\.$/,
    );
    expect(await groups.count()).toBe(0);

    // Spend on days without installs: its cost, and the table by media source, still shown.
    const spent = dayBefore(days.first, 30);
    const costed = await rt.post(
      "/v1/costs",
      {
        rows: [
          {
            day: spent,
            media_source: COHORT_NETWORK,
            campaign_id: "idle",
            campaign_name: "Idle Campaign",
            amount: 12.5,
            currency: "USD",
            impressions: 4000,
            clicks: 20,
          },
        ],
      },
      cohortWorld().serverKey,
    );
    await costed.body?.cancel();
    expect(costed.status).toBe(200);
    // By campaign (cost rows name no platform), and a range never asked for before, so that no
    // answer of it is kept.
    await page.getByLabel("Group by", { exact: true }).selectOption("campaign");
    await page.getByLabel("From").fill(dayBefore(spent, 2));
    await page.getByLabel("To", { exact: true }).fill(dayBefore(spent, -2));
    await expect.poll(() => figure("cost").getAttribute("data-value"), WITHIN).toBe("12.5");
    expect(await figure("cost").innerText()).toBe("$12.50");
    expect(await figure("impressions").innerText()).toBe("4,000");
    expect(await figure("clicks").innerText()).toBe("20");
    expect(await figure("installs").innerText()).toBe("0");
    expect(await empty.innerText()).toMatch(
      /^No installs in this range: the cost, impressions and clicks below won none, so there is no revenue or retention to show\./,
    );
    const idle = groups.locator("tbody tr").filter({ hasText: "Idle Campaign" });
    expect(await idle.count()).toBe(1);
    expect(await idle.innerText()).toContain("$12.50");
    // No install day, so no revenue, retention or cohort table.
    expect(await figure("revenue").count()).toBe(0);
    expect(await figure("retention-d1").count()).toBe(0);
    expect(await page.getByTestId("cohort-table").count()).toBe(0);

    // Wide and narrow: the page never scrolls sideways, the wide tables scroll in their cards.
    for (const viewport of [{ width: 1440, height: 900 }, PHONE]) {
      const context = await browser.newContext({
        viewport,
        reducedMotion: "reduce",
        storageState: await owner.storageState(),
      });
      try {
        const on = await context.newPage();
        await open(on, `/apps/${appId}/cohorts?${window}`);
        await on.getByTestId("cohort-groups").waitFor(WITHIN);
        await on.getByTestId("cohort-table").waitFor();
        const { scrollWidth, innerWidth } = await documentWidth(on);
        expect(innerWidth).toBe(viewport.width);
        expect(scrollWidth, `the Cohorts page at ${viewport.width} px`).toBeLessThanOrEqual(
          innerWidth,
        );
        await screenshot(on, `cohorts-${viewport.width}`);
      } finally {
        await context.close();
      }
    }
  });

  it("5d. filters the overview by media source, country and platform: every figure, chart and table the report's of the same filters, kept over a reload and carried to the Cohorts page and back", async () => {
    const { appId } = demoApp();
    const window = `from=${range.from}&to=${range.to}`;
    const overview = async (filters: Record<string, string> = {}) =>
      (
        await apiGet(
          owner,
          `/v1/reports/overview?app_id=${appId}&${window}&${new URLSearchParams(filters)}`,
        )
      ).body as OverviewAnswer;
    const routeOf = (pageName: string, filters: Record<string, string> = {}) =>
      `#/apps/${appId}/${pageName}?${new URLSearchParams({ ...range, ...filters })}`;
    const all = await overview();

    await open(page, `/apps/${appId}/overview?${window}`);
    await heading(page, "Overview").waitFor();
    const showing = (words: string) =>
      page
        .getByRole("status")
        .filter({ hasText: `Showing ${range.from} to ${range.to}${words}.` })
        .waitFor(WITHIN);
    await showing("");
    const total = async (name: string) =>
      Number(await page.getByTestId(`total-${name}`).getAttribute("data-value"));
    expect(await total("installs")).toBe(all.totals.installs);

    const select = (label: string) => page.getByLabel(label, { exact: true });
    const optionValues = (label: string) =>
      select(label)
        .locator("option")
        .evaluateAll((options) =>
          options.map((option) => (option as unknown as { value: string }).value),
        );
    // The media sources and campaigns offered: those of the unfiltered campaign table.
    const named = (values: (string | null)[]) =>
      [...new Set(values.filter((value): value is string => value !== null))].sort();
    await expect
      .poll(() => optionValues("Media source"), WITHIN)
      .toEqual(["", ...named(all.campaigns.map((row) => row.media_source))]);
    expect(await optionValues("Campaign")).toEqual([
      "",
      ...named(all.campaigns.map((row) => row.campaign)),
    ]);

    /** A chart's figures as its table for screen readers holds them: series name → values. */
    const chartSeries = async (caption: string) => {
      const table = page
        .getByRole("table")
        .filter({ has: page.locator("caption", { hasText: caption }) });
      const names = (await table.locator("thead th").allTextContents()).slice(1);
      const rows = await Promise.all(
        (await table.locator("tbody tr").all()).map((row) =>
          row.locator("th, td").allTextContents(),
        ),
      );
      return Object.fromEntries(
        names.map((name, index) => [name, rows.map((row) => row[index + 1])]),
      );
    };
    const days: string[] = [];
    for (let day = range.from; day <= range.to; day = dayBefore(day, -1)) days.push(day);
    const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
    /** The page holds the report's answer: totals, two charts' figures, the campaign table. */
    const holds = async (answer: OverviewAnswer) => {
      expect(await total("installs")).toBe(answer.totals.installs);
      expect(await total("paid")).toBe(answer.totals.paid_installs);
      expect(await total("organic")).toBe(answer.totals.organic_installs);
      expect(await total("events")).toBe(answer.totals.events);
      expect(await total("revenue")).toBeCloseTo(answer.totals.revenue_usd, 2);
      const installs = new Map<string, number[]>();
      for (const row of answer.installs_by_day) {
        const name = row.media_source ?? "none (not attributed)";
        const values = installs.get(name) ?? days.map(() => 0);
        installs.set(name, values);
        const at = days.indexOf(row.date.slice(0, 10));
        if (at >= 0) values[at] = (values[at] ?? 0) + row.installs;
      }
      expect(await chartSeries("Installs per day by media source")).toEqual(
        Object.fromEntries([...installs].map(([name, values]) => [name, values.map(String)])),
      );
      expect(await chartSeries("Revenue per day (USD)")).toEqual({
        "Revenue USD": days.map((day) =>
          usd.format(
            answer.revenue_by_day
              .filter((row) => row.date.slice(0, 10) === day)
              .reduce((sum, row) => sum + row.revenue_usd, 0),
          ),
        ),
      });
      const campaigns = page.getByRole("table", { name: "Campaigns" }).locator("tbody tr");
      expect(await campaigns.count()).toBe(answer.campaigns.length);
      expect((await cellTexts(campaigns, 0)).sort()).toEqual(
        answer.campaigns.map((row) => row.media_source ?? "none (not attributed)").sort(),
      );
    };
    await holds(all);

    // A paid media source, the one of the most revenue: its installs, their events and revenue
    // (which may be none: the demo lays its traffic out back from the time it is sent, so which
    // installs its few paying users are, and which of them a paid source wins, varies with the
    // time of day the test runs).
    const revenueOf = new Map<string, number>();
    for (const row of all.campaigns) {
      if (row.media_source === null || row.media_source === "organic" || row.installs === 0)
        continue;
      revenueOf.set(row.media_source, (revenueOf.get(row.media_source) ?? 0) + row.revenue_usd);
    }
    const source = [...revenueOf].sort((a, b) => b[1] - a[1])[0]?.[0];
    if (!source) throw new Error("the demo's overview names no paid media source");
    await select("Media source").selectOption(source);
    await showing(`: media source ${source}`);
    const bySource = await overview({ media_source: source });
    expect(bySource.totals.installs).toBeGreaterThan(0);
    expect(bySource.totals.installs).toBeLessThan(all.totals.installs);
    expect(bySource.totals.revenue_usd).toBeCloseTo(revenueOf.get(source) ?? Number.NaN, 2);
    await holds(bySource);
    expect(await total("organic")).toBe(0);
    // The campaigns offered are the media source's.
    expect(await optionValues("Campaign")).toEqual([
      "",
      ...named(
        all.campaigns.filter((row) => row.media_source === source).map((row) => row.campaign),
      ),
    ]);
    await screenshot(page, "overview-filtered");

    // The countries offered: those the range's events were sent from, the unfiltered overview's.
    expect(all.countries.length).toBeGreaterThan(1);
    expect(await optionValues("Country")).toEqual([
      "",
      ...named(all.countries.map((row) => row.country)),
    ]);
    // And a country: the one of the source's most installs.
    const country = bySource.countries.find((row) => row.country !== null)?.country;
    if (!country) throw new Error(`no country has installs of ${source}`);
    await select("Country").selectOption(country);
    await showing(`: media source ${source}, country ${country}`);
    const byCountry = await overview({ media_source: source, country });
    expect(byCountry.totals.installs).toBeGreaterThan(0);
    expect(byCountry.totals.installs).toBeLessThan(bySource.totals.installs);
    await holds(byCountry);

    // An Android app's installs on iOS: none, said in words.
    await select("Platform").selectOption("ios");
    await showing(`: media source ${source}, country ${country}, platform iOS`);
    expect((await overview({ media_source: source, country, platform: "ios" })).totals).toEqual({
      installs: 0,
      paid_installs: 0,
      organic_installs: 0,
      reinstalls: 0,
      events: 0,
      revenue_usd: 0,
    });
    expect(await total("installs")).toBe(0);
    expect(
      await page.getByRole("table", { name: "Campaigns" }).count(),
      "no campaign table without installs",
    ).toBe(0);
    expect(
      await page.getByText("No installs or events in this range with these filters.").count(),
    ).toBe(1);
    await select("Platform").selectOption("");

    // Kept in the address: a reload shows the same figures.
    await showing(`: media source ${source}, country ${country}`);
    expect(new URL(page.url()).hash).toBe(routeOf("overview", { media_source: source, country }));
    await page.reload();
    await heading(page, "Overview").waitFor();
    await showing(`: media source ${source}, country ${country}`);
    expect(await select("Media source").inputValue()).toBe(source);
    expect(await select("Country").inputValue()).toBe(country);
    expect(await page.getByLabel("From").inputValue()).toBe(range.from);
    await holds(byCountry);

    // The Cost page's link carries the range; the Cohorts page's the filters too.
    expect(await navLink(page, "Cost").getAttribute("href")).toBe(routeOf("cost"));
    await navLink(page, "Cohorts").click();
    await heading(page, "Cohorts").waitFor();
    expect(new URL(page.url()).hash).toBe(routeOf("cohorts", { media_source: source, country }));
    await showing(`: media source ${source}, country ${country}`);
    expect(await select("Media source").inputValue()).toBe(source);
    expect(await select("Country").inputValue()).toBe(country);
    const cohortsAnswer = (
      await apiGet(
        owner,
        `/v1/reports/cohorts?app_id=${appId}&${window}&media_source=${encodeURIComponent(source)}&country=${country}`,
      )
    ).body as CohortAnswer;
    expect(Number(await page.getByTestId("cohort-installs").getAttribute("data-value"))).toBe(
      cohortsAnswer.totals.installs,
    );

    // A filter chosen on the Cohorts page goes back to the overview with the others.
    await select("Platform").selectOption("android");
    await showing(`: media source ${source}, country ${country}, platform Android`);
    await navLink(page, "Overview").click();
    await heading(page, "Overview").waitFor();
    expect(new URL(page.url()).hash).toBe(
      routeOf("overview", { media_source: source, country, platform: "android" }),
    );
    await showing(`: media source ${source}, country ${country}, platform Android`);
    expect(await select("Platform").inputValue()).toBe("android");
    await holds(await overview({ media_source: source, country, platform: "android" }));

    // Clear filters: the range's whole overview again, the focus on the first filter (the
    // button goes with the filters).
    await page.getByRole("button", { name: "Clear filters" }).click();
    await showing("");
    await holds(all);
    expect(await focused(page)).toBe("overview-media_source");
    expect(new URL(page.url()).hash).toBe(routeOf("overview"));
  });

  it("5e. uploads a CSV file of cost rows on the Cost page: a preview, the rows stored and counted on the Cohorts page, a refused row named beside it with nothing stored, the same file again reported as replacing; the range's rows downloadable; no sideways scrolling", async () => {
    const { appId } = demoApp();
    const window = `from=${range.from}&to=${range.to}`;
    const stored = async () =>
      ((await apiGet(owner, `/v1/costs?app_id=${appId}&${window}`)).body as { data: CostAnswer[] })
        .data;
    const before = await stored();
    // The demo's networks report what their installs cost.
    expect(before.length).toBeGreaterThan(0);
    const source = before[0]?.media_source ?? "";
    const cohortCost = async (groupBy: string) =>
      (
        (
          await apiGet(
            owner,
            `/v1/reports/cohorts?app_id=${appId}&${window}&group_by=${groupBy}&media_source=${encodeURIComponent(source)}`,
          )
        ).body as CohortAnswer
      ).totals.cost_usd ?? 0;
    // Grouped by country: a question the page will not ask, so no answer of it is kept.
    const costBefore = await cohortCost("country");

    // The overview's link carries its range to the Cost page.
    await open(page, `/apps/${appId}/overview?${window}`);
    await heading(page, "Overview").waitFor();
    await navLink(page, "Cost").click();
    await heading(page, "Cost").waitFor();
    expect(new URL(page.url()).hash).toBe(`#/apps/${appId}/cost?${window}`);
    expect(await page.getByLabel("From").inputValue()).toBe(range.from);

    // The range's rows: the service's, and the CSV file holds them as shown.
    const rows = page.getByTestId("cost-rows");
    await rows.waitFor(WITHIN);
    const tableTexts = async (table: Locator) =>
      Promise.all(
        (await table.locator("tr").all()).map((row) => row.locator("th, td").allInnerTexts()),
      );
    const bodyRows = () => rows.locator("tbody tr");
    expect(await bodyRows().count()).toBe(before.length);
    expect(await cellTexts(bodyRows(), 0)).toEqual(before.map((row) => row.day));
    expect(await cellTexts(bodyRows(), 1)).toEqual(before.map((row) => row.media_source));
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download CSV of the cost rows", exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${appId}_cost_${range.from}_${range.to}.csv`);
    const file = await readFile(await download.path(), "utf8");
    expect(file.startsWith("\uFEFF")).toBe(true);
    expect(parseCsv(file.slice(1))).toEqual(await tableTexts(rows));

    // A spreadsheet's file: a byte order mark, CRLF, its own order of columns, a quoted comma.
    const upload = Buffer.from(
      [
        "\uFEFFmedia_source,day,campaign_id,campaign_name,amount,currency,country,impressions,clicks",
        `${source},${range.from},csv-upload,"Spring, from a file",12.5,USD,,,`,
        `${source},${range.to},csv-upload,"Spring, from a file",7.5,USD,,1000,40`,
        `${source},${range.to},csv-upload,"Spring, from a file",5,USD,DE,,`,
        ",,,,,,,,",
        "",
      ].join("\r\n"),
    );
    const fileInput = page.getByLabel("CSV file of cost rows");
    await fileInput.setInputFiles({ name: "spring.csv", mimeType: "text/csv", buffer: upload });
    const preview = page.getByTestId("cost-preview");
    await preview.waitFor();
    expect(await page.getByRole("heading", { name: "Preview: 3 rows of spring.csv" }).count()).toBe(
      1,
    );
    expect(await tableTexts(preview)).toEqual([
      [
        "Row",
        "day",
        "media_source",
        "campaign_id",
        "campaign_name",
        "country",
        "amount",
        "currency",
        "impressions",
        "clicks",
      ],
      ["1", range.from, source, "csv-upload", "Spring, from a file", "", "12.5", "USD", "", ""],
      ["2", range.to, source, "csv-upload", "Spring, from a file", "", "7.5", "USD", "1000", "40"],
      ["3", range.to, source, "csv-upload", "Spring, from a file", "DE", "5", "USD", "", ""],
    ]);
    await screenshot(page, "cost-preview");
    const status = page.getByRole("status").filter({ hasText: /rows? stored/ });
    await page.getByRole("button", { name: "Upload 3 rows", exact: true }).click();
    await status.filter({ hasText: "3 rows stored (0 replaced an earlier one)." }).waitFor(WITHIN);

    // Stored as sent, and in the table of the range.
    const after = await stored();
    expect(after.length).toBe(before.length + 3);
    const uploaded = after.filter((row) => row.campaign_id === "csv-upload");
    expect(
      uploaded
        .map((row) => [row.day, row.campaign_name, row.country, row.amount, row.amount_usd])
        .sort(),
    ).toEqual(
      [
        [range.from, "Spring, from a file", null, 12.5, 12.5],
        [range.to, "Spring, from a file", null, 7.5, 7.5],
        [range.to, "Spring, from a file", "DE", 5, 5],
      ].sort(),
    );
    expect(uploaded.find((row) => row.clicks !== null)).toMatchObject({
      impressions: 1000,
      clicks: 40,
    });
    await expect.poll(() => bodyRows().count(), WITHIN).toBe(before.length + 3);
    expect(
      (await tableTexts(rows)).filter((row) => row[2] === "csv-upload").map((row) => row[11]),
    ).toEqual(expect.arrayContaining(["$12.50", "$7.50", "$5.00"]));

    // The Cohorts page's cost counts them: 25 USD more for the media source.
    await navLink(page, "Cohorts").click();
    await heading(page, "Cohorts").waitFor();
    expect(new URL(page.url()).hash).toBe(`#/apps/${appId}/cohorts?${window}`);
    await page.getByLabel("Media source", { exact: true }).selectOption(source);
    await page
      .getByRole("status")
      .filter({ hasText: `: media source ${source}.` })
      .waitFor(WITHIN);
    const cost = Number(await page.getByTestId("cohort-cost").getAttribute("data-value"));
    expect(cost).toBeCloseTo(costBefore + 25, 2);
    expect(cost).toBeCloseTo(await cohortCost("campaign"), 2);

    // A file of two requests whose last row is after tomorrow: refused whole at the file input,
    // before any request, so that the first request's rows are not stored without the rest.
    await navLink(page, "Cost").click();
    await heading(page, "Cost").waitFor();
    const tomorrow = dayBefore(today(), -1);
    const afterTomorrow = dayBefore(today(), -2);
    let costPosts = 0;
    const countPosts = (request: { method(): string; url(): string }) => {
      if (request.method() === "POST" && new URL(request.url()).pathname === "/v1/costs") {
        costPosts += 1;
      }
    };
    page.on("request", countPosts);
    const late = Buffer.from(
      [
        "day,media_source,campaign_id,amount,currency",
        ...Array.from({ length: 1_000 }, (_, n) => `${range.from},${source},csv-late-${n},1,USD`),
        `${afterTomorrow},${source},csv-late-last,1,USD`,
        "",
      ].join("\n"),
    );
    await fileInput.setInputFiles({ name: "late.csv", mimeType: "text/csv", buffer: late });
    const fileProblem = page.locator("#cost-file-error");
    await expect
      .poll(() => fileProblem.innerText(), WITHIN)
      .toBe(
        `Line 1,002, day: must not be after tomorrow (${tomorrow}, UTC). Nothing was sent: correct the file and choose it again.`,
      );
    expect(await fileProblem.getAttribute("role")).toBe("alert");
    expect(await fileInput.getAttribute("aria-invalid")).toBe("true");
    expect(await fileInput.getAttribute("aria-describedby")).toBe("cost-file-error");
    expect(await page.getByRole("button", { name: /^Upload / }).count()).toBe(0);
    expect(await page.getByTestId("cost-preview").count()).toBe(0);
    expect(costPosts).toBe(0);
    page.off("request", countPosts);
    expect((await stored()).filter((row) => row.campaign_id.startsWith("csv-late"))).toEqual([]);

    // A row the service refuses all the same (its clock a day behind this browser's, answered
    // here: its tomorrow is this browser's today): the reason beside that row, nothing stored.
    const reason = `day: must not be after tomorrow (${today()}, UTC)`;
    /** The service's 422 of the fourth row of a request, for every upload on `on`. */
    const refuseFourthRow = (on: Page) =>
      on.route("**/v1/costs?*", (route) =>
        route.request().method() === "POST"
          ? route.fulfill({
              status: 422,
              contentType: "application/json",
              body: JSON.stringify({
                error: "Unprocessable Entity",
                detail: `body.rows[3].${reason}`,
              }),
            })
          : route.continue(),
      );
    const refused = Buffer.from(
      [
        "day,media_source,campaign_id,amount,currency",
        `${range.from},${source},csv-refused-1,1,USD`,
        `${range.from},${source},csv-refused-2,1,USD`,
        `${range.to},${source},csv-refused-3,1,USD`,
        `${today()},${source},csv-refused-4,1,USD`,
        "",
      ].join("\n"),
    );
    await refuseFourthRow(page);
    await fileInput.setInputFiles({ name: "refused.csv", mimeType: "text/csv", buffer: refused });
    expect(await fileInput.getAttribute("aria-invalid")).toBeNull();
    await page.getByRole("button", { name: "Upload 4 rows", exact: true }).click();
    const refusal = page.getByTestId("cost-refusal").getByRole("alert");
    await expect
      .poll(() => refusal.innerText(), WITHIN)
      .toBe(`Nothing was stored. The service refused the file: Row 4 (line 5), ${reason}.`);
    await page.unroute("**/v1/costs?*");
    const fourth = preview.locator('tr[data-row="4"]');
    const beside = page.locator(
      `[id="${await fourth.locator("th").getAttribute("aria-describedby")}"]`,
    );
    expect(await beside.innerText()).toBe(reason);
    // Right under the row, its day cell marked, and focus on the row.
    expect(
      await fourth.evaluate(
        (row) =>
          (row as unknown as { nextElementSibling: { textContent: string } }).nextElementSibling
            .textContent,
      ),
    ).toBe(reason);
    expect(await fourth.locator('td[data-refused="day"]').innerText()).toBe(today());
    expect(await preview.getByTestId("row-problem").count()).toBe(1);
    // Focus moves on the frame after the refusal is drawn, which a busy machine may delay.
    await expect
      .poll(
        () =>
          page.evaluate<string | null>(
            "document.activeElement?.closest('tr')?.getAttribute('data-row') ?? null",
          ),
        WITHIN,
      )
      .toBe("4");
    await screenshot(page, "cost-refused");
    expect((await stored()).filter((row) => row.campaign_id.startsWith("csv-refused"))).toEqual([]);
    expect((await stored()).length).toBe(before.length + 3);

    // The first file again: its rows replace themselves.
    await fileInput.setInputFiles({ name: "spring.csv", mimeType: "text/csv", buffer: upload });
    await page.getByRole("button", { name: "Upload 3 rows", exact: true }).click();
    await status.filter({ hasText: "3 rows stored (3 replaced an earlier one)." }).waitFor(WITHIN);
    expect(await page.getByTestId("cost-refusal").innerText()).toBe("");
    expect((await stored()).length).toBe(before.length + 3);

    // A row of a day before the range: a button shows its days, and the focus goes to the
    // range that now shows them, the button gone.
    const earlier = dayBefore(range.from, 3);
    await fileInput.setInputFiles({
      name: "earlier.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(
        ["day,media_source,campaign_id,amount,currency", `${earlier},${source},csv-earlier,2,USD`]
          .concat("")
          .join("\n"),
      ),
    });
    await page.getByRole("button", { name: "Upload 1 row", exact: true }).click();
    const showDays = page.getByRole("button", { name: `Show ${earlier} to ${earlier}` });
    await showDays.click();
    await expect.poll(() => page.getByLabel("From").inputValue(), WITHIN).toBe(earlier);
    await expect.poll(() => showDays.count(), WITHIN).toBe(0);
    expect(await page.evaluate("document.activeElement?.getAttribute('name') ?? null")).toBe(
      "from",
    );
    await expect
      .poll(() => cellTexts(bodyRows(), 0), WITHIN)
      .toEqual(expect.arrayContaining([earlier]));

    // Wide and narrow, the refused preview and the table of 15 columns: no sideways scrolling.
    for (const viewport of [{ width: 1440, height: 900 }, PHONE]) {
      const context = await browser.newContext({
        viewport,
        reducedMotion: "reduce",
        storageState: await owner.storageState(),
      });
      try {
        const on = await context.newPage();
        await open(on, `/apps/${appId}/cost?${window}`);
        await heading(on, "Cost").waitFor();
        await on.getByTestId("cost-rows").waitFor(WITHIN);
        await refuseFourthRow(on);
        await on
          .getByLabel("CSV file of cost rows")
          .setInputFiles({ name: "refused.csv", mimeType: "text/csv", buffer: refused });
        await on.getByRole("button", { name: "Upload 4 rows", exact: true }).click();
        await on.getByTestId("row-problem").waitFor(WITHIN);
        const { scrollWidth, innerWidth } = await documentWidth(on);
        expect(innerWidth).toBe(viewport.width);
        expect(scrollWidth, `the Cost page at ${viewport.width} px`).toBeLessThanOrEqual(
          innerWidth,
        );
        // The reason is in view, whatever the preview's width.
        const box = await on.getByTestId("row-problem").boundingBox();
        expect(box?.x).toBeGreaterThanOrEqual(0);
        expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(viewport.width);
        await screenshot(on, `cost-${viewport.width}`);
      } finally {
        await context.close();
      }
    }
  });

  /** The overview the API answers the owner for one day of an app. */
  const overviewOfDay = async (appId: string, day: string) =>
    (await apiGet(owner, `/v1/reports/overview?app_id=${appId}&from=${day}&to=${day}`))
      .body as OverviewAnswer;

  it("5f. filters by a campaign named with a space at its end, as named; downloads a refund as the negative amount it is", async () => {
    // An app of its own: one install won by a click of a campaign whose name ends in a space,
    // and a refund of 44 USD.
    const spacedApp = "com.example.browser.spaced";
    const campaign = "Spring Sale ";
    const { sdkKey, serverKey } = await rt.createApp(spacedApp, "android");
    const maid = randomUUID();
    const serviceId = randomUUID();
    const now = Date.now();
    const touched = await rt.post(
      "/v1/touches",
      {
        touches: [
          {
            touch_type: "click",
            touch_time: new Date(now - 60_000).toISOString(),
            media_source: "spacenet",
            campaign_name: campaign,
            ip: "203.0.113.20",
            user_agent: ANDROID_PHONE,
            maid,
          },
        ],
      },
      serverKey,
    );
    expect(touched.status, await touched.text()).toBeLessThan(300);
    const installed = await rt.post(
      "/v1/installs",
      androidInstallRequest(serviceId, { maid, first_open_time: new Date(now).toISOString() }),
      sdkKey,
    );
    expect(installed.status, await installed.text()).toBe(202);
    const attribution = await rt.get(
      `/v1/installs/${serviceId}/attribution?wait_seconds=20`,
      sdkKey,
    );
    expect(await attribution.json()).toMatchObject({ media_source: "spacenet" });
    const refunded = await rt.post(
      "/v1/events",
      {
        events: [
          {
            event_id: randomUUID(),
            event_type: "PURCHASE",
            event_time: new Date(now + 1_000).toISOString(),
            service_id: serviceId,
            parameters: { revenue: -44, currency: "USD" },
          },
        ],
      },
      sdkKey,
    );
    expect(refunded.status, await refunded.text()).toBeLessThan(300);
    await rt.flush();
    const day = today();
    await expect
      .poll(async () => {
        const { campaigns } = await overviewOfDay(spacedApp, day);
        return campaigns.map((row) => [row.campaign, row.revenue_usd]);
      }, PAST_REPORT_CACHE)
      .toEqual([[campaign, -44]]);

    await open(page, `/apps/${spacedApp}/overview?from=${day}&to=${day}`);
    await heading(page, "Overview").waitFor();
    const total = async (name: string) =>
      Number(await page.getByTestId(`total-${name}`).getAttribute("data-value"));
    await expect.poll(() => total("installs"), WITHIN).toBe(1);
    const campaigns = page.getByRole("table", { name: "Campaigns" }).locator("tbody tr");
    expect(await cellTexts(campaigns, 5)).toEqual(["-$44.00"]);

    // The refund downloads as the amount it is, which a spreadsheet sums; a name that could
    // run as a formula would still be written after an apostrophe.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download CSV of the campaign table", exact: true }).click(),
    ]);
    const rows = parseCsv((await readFile(await download.path(), "utf8")).slice(1));
    expect(rows[1]).toEqual(["spacenet", campaign, "1", "0", "2", "-$44.00", "-$44.00"]);

    // The campaign chosen as it is named: its install, not none; kept in the address as such.
    await page.getByLabel("Campaign", { exact: true }).selectOption(campaign);
    await expect
      .poll(() => new URL(page.url()).hash, WITHIN)
      .toContain(`campaign=${encodeURIComponent(campaign).replaceAll("%20", "+")}`);
    await page
      .getByRole("status")
      .filter({ hasText: `Showing ${day} to ${day}: campaign ${campaign}` })
      .waitFor(WITHIN);
    await expect.poll(() => total("installs"), WITHIN).toBe(1);
    expect(await cellTexts(campaigns, 5)).toEqual(["-$44.00"]);
    await page.reload();
    await heading(page, "Overview").waitFor();
    await expect.poll(() => total("installs"), WITHIN).toBe(1);
    expect(await page.getByLabel("Campaign", { exact: true }).inputValue()).toBe(campaign);
  });

  it("5g. counts an iPhone's reinstall apart: its own card, its source's column, in no install", async () => {
    // An app of its own: an iPhone installs, and installs again (its IDFV known), organic both.
    const iosApp = "com.example.browser.reinstalled";
    const { sdkKey } = await rt.createApp(iosApp, "ios");
    const idfv = randomUUID().toUpperCase();
    // Both installs and the page on one UTC day.
    await clearOfMidnight(60_000);
    const now = Date.now();
    for (const [n, serviceId] of [randomUUID(), randomUUID()].entries()) {
      const first_open_time = new Date(now - (2 - n) * 1_000).toISOString();
      const installed = await rt.post(
        "/v1/installs",
        installRequest(serviceId, { idfv, first_open_time }),
        sdkKey,
      );
      expect(installed.status, await installed.text()).toBe(202);
      expect(await rt.attributionOf(serviceId, sdkKey)).toMatchObject({
        service_match_status: "organic",
      });
    }
    await rt.flush();
    const day = today();
    await expect
      .poll(async () => {
        const { totals } = await overviewOfDay(iosApp, day);
        return [totals.installs, totals.reinstalls];
      }, PAST_REPORT_CACHE)
      .toEqual([1, 1]);

    await open(page, `/apps/${iosApp}/overview?from=${day}&to=${day}`);
    await heading(page, "Overview").waitFor();
    const total = async (name: string) =>
      Number(await page.getByTestId(`total-${name}`).getAttribute("data-value"));
    await expect.poll(() => total("reinstalls"), WITHIN).toBe(1);
    expect(await total("installs")).toBe(1);
    expect(await total("organic")).toBe(1);
    const campaigns = page.getByRole("table", { name: "Campaigns" }).locator("tbody tr");
    expect(await cellTexts(campaigns, 0)).toEqual(["organic"]);
    // Installs, then reinstalls.
    expect([await cellTexts(campaigns, 2), await cellTexts(campaigns, 3)]).toEqual([["1"], ["1"]]);
  });

  it("5h. gives the Cohorts table a column of the revenue events each row lacks, only when one lacks some", async () => {
    // An app of its own: one organic install, and a purchase in dinars, which no rate converts.
    const dinarApp = "com.example.browser.dinars";
    const { sdkKey } = await rt.createApp(dinarApp, "android");
    const serviceId = randomUUID();
    const installed = await rt.post("/v1/installs", androidInstallRequest(serviceId), sdkKey);
    expect(installed.status, await installed.text()).toBe(202);
    await rt.workers.idle();
    const bought = await rt.post(
      "/v1/events",
      {
        events: [
          {
            event_id: randomUUID(),
            event_type: "PURCHASE",
            event_time: new Date().toISOString(),
            service_id: serviceId,
            parameters: { revenue: 3, currency: "KWD" },
          },
        ],
      },
      sdkKey,
    );
    expect(bought.status, await bought.text()).toBeLessThan(300);
    await rt.workers.idle();
    await rt.flush();
    const day = today();
    await open(page, `/apps/${dinarApp}/cohorts?from=${day}&to=${day}`);
    await heading(page, "Cohorts").waitFor();
    const groups = page.getByTestId("cohort-groups");
    await groups.waitFor(WITHIN);
    const head = await groups.locator("thead th").allInnerTexts();
    expect(head.at(-1)).toBe("Revenue events left out");
    const organic = groups.locator("tbody tr").filter({ hasText: "organic" });
    expect((await organic.locator("td, th").allInnerTexts()).at(-1)).toBe("1");
    // The main cohort app's revenue all converts: no such column.
    await open(
      page,
      `/apps/${cohortWorld().appId}/cohorts?from=${cohortWorld().days.first}&to=${cohortWorld().days.today}`,
    );
    await page.getByTestId("cohort-groups").waitFor(WITHIN);
    expect(
      await page.getByTestId("cohort-groups").locator("thead th").allInnerTexts(),
    ).not.toContain("Revenue events left out");
  });

  it("5i. names under the acquisition cards a campaign whose paid installs fell on a day of no cost", async () => {
    // An app of its own: an install now that a network's click won, whose cost came for
    // yesterday alone.
    const lateApp = "com.example.browser.latecost";
    const { sdkKey, serverKey } = await rt.createApp(lateApp, "android");
    const serviceId = randomUUID();
    const maid = randomUUID();
    const now = new Date();
    const touched = await rt.post(
      "/v1/touches",
      {
        touches: [
          {
            touch_type: "click",
            touch_time: new Date(now.getTime() - 60_000).toISOString(),
            media_source: "latenet",
            campaign_id: "l-1",
            campaign_name: "Late Sale",
            maid,
          },
        ],
      },
      serverKey,
    );
    expect(touched.status, await touched.text()).toBe(202);
    const body = androidInstallRequest(serviceId, { maid, first_open_time: now.toISOString() });
    const installed = await rt.post("/v1/installs", body, sdkKey);
    expect(installed.status, await installed.text()).toBe(202);
    const attribution = await rt.get(
      `/v1/installs/${serviceId}/attribution?wait_seconds=20`,
      sdkKey,
    );
    expect(await attribution.json()).toMatchObject({ media_source: "latenet" });
    const day = now.toISOString().slice(0, 10);
    const yesterday = dayBefore(day, 1);
    const cost = await rt.post(
      "/v1/costs",
      {
        rows: [
          {
            day: yesterday,
            media_source: "latenet",
            campaign_id: "l-1",
            amount: 8,
            currency: "USD",
          },
        ],
      },
      serverKey,
    );
    expect(cost.status, await cost.text()).toBe(200);
    await rt.workers.idle();
    await rt.flush();
    await open(page, `/apps/${lateApp}/cohorts?from=${yesterday}&to=${day}`);
    await heading(page, "Cohorts").waitFor();
    const line = page.getByTestId("cost-days-missing");
    await line.waitFor(WITHIN);
    expect(await line.innerText()).toBe(
      `Paid installs on days with no cost count as free in eCPI and ROAS until the network's cost of those days comes, often a day or two late: latenet Late Sale on ${day} (1 paid install).`,
    );
    // Under the acquisition cards, beside the eCPI it speaks of.
    const acquisition = page.getByRole("region", { name: "Acquisition", exact: true });
    expect(await acquisition.getByTestId("cost-days-missing").count()).toBe(1);
    expect(await page.getByTestId("cohort-ecpi").innerText()).toBe("$8.00");
    // The main cohort app's paid installs all fell on its day of cost: no such line.
    await open(
      page,
      `/apps/${cohortWorld().appId}/cohorts?from=${cohortWorld().days.first}&to=${cohortWorld().days.today}`,
    );
    await page.getByTestId("cohort-groups").waitFor(WITHIN);
    expect(await page.getByTestId("cost-days-missing").count()).toBe(0);
  });

  it("6. saves a click window of 14 days; shows the service's refusal of 99; saves a time zone the overview's range then counts in", async () => {
    await open(page, `/apps/${APP_ID}/settings`);
    await heading(page, "Settings").waitFor();
    const clickWindow = page.getByLabel("Click window");
    await clickWindow.fill("14");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").filter({ hasText: "Settings saved." }).waitFor();
    expect(await apiGet(owner, `/v1/apps/${APP_ID}`)).toMatchObject({
      status: 200,
      body: { app: { attribution: { click_window_days: 14 } } },
    });
    expect((await rt.stores.apps.get(APP_ID))?.attribution?.clickWindowDays).toBe(14);

    await clickWindow.fill("99");
    const [answer] = await Promise.all([
      page.waitForResponse(
        (response) =>
          response.request().method() === "PATCH" && response.url().endsWith(`/v1/apps/${APP_ID}`),
      ),
      page.getByRole("button", { name: "Save settings" }).click(),
    ]);
    expect(answer.status()).toBe(422);
    const { detail } = (await answer.json()) as { detail: string };
    expect(detail).toBe(
      "attribution.click_window_days: must be a whole number of days from 1 to 30",
    );
    // The service names its field; the page names the input, by its label, in words.
    const said = "Click window must be a whole number of days from 1 to 30";
    const error = page.locator("#settings-error");
    await expect.poll(() => error.innerText(), WITHIN).toBe(`Not saved. ${said}`);
    expect(await error.getAttribute("role")).toBe("alert");
    // The field the detail names is marked, its reason beside it, and it has the focus.
    await expect.poll(() => clickWindow.getAttribute("aria-invalid"), WITHIN).toBe("true");
    const describedBy = await clickWindow.getAttribute("aria-describedby");
    expect(describedBy).toBeTruthy();
    const reason = page.locator(`[id="${describedBy}"]`);
    expect(await reason.innerText()).toBe(said);
    await expect
      .poll(() => page.evaluate("document.activeElement?.name"), WITHIN)
      .toBe("click_window_days");
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(1);
    expect((await rt.stores.apps.get(APP_ID))?.attribution?.clickWindowDays).toBe(14);
    await screenshot(page, "settings");

    // The reports' time zone, picked from the zones the browser lists: the overview says so.
    await clickWindow.fill("14");
    const zone = page.getByLabel("Time zone");
    await zone.fill("Asia/Tokyo");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").filter({ hasText: "Settings saved." }).waitFor(WITHIN);
    expect((await rt.stores.apps.get(APP_ID))?.timeZone).toBe("Asia/Tokyo");
    const tokyoToday = () =>
      new Intl.DateTimeFormat("en-CA", {
        timeZone: "Asia/Tokyo",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
      }).format(new Date());
    const before = tokyoToday();
    await open(page, `/apps/${APP_ID}/overview`);
    // The range's days are Tokyo's: its legend says so, and its latest day is Tokyo's today
    // (either side of its midnight, should the page have been drawn across it).
    await page.getByText("Date range (days of Asia/Tokyo, both included)").waitFor(WITHIN);
    const latest = await page.locator('input[name="to"]').getAttribute("max");
    expect([before, tokyoToday()]).toContain(latest);
    await open(page, `/apps/${APP_ID}/settings`);
    await heading(page, "Settings").waitFor();
    await page.getByLabel("Time zone").fill("UTC");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").filter({ hasText: "Settings saved." }).waitFor(WITHIN);
    expect((await rt.stores.apps.get(APP_ID))?.timeZone).toBe("UTC");

    // The zone changed behind the page's back (another tab, the API) while the page, never
    // reloaded, keeps the app list it read: the Overview and Cohorts go by their answer's zone
    // (`time_zone`) and read the list again when it names another; the Cost page, whose answer
    // names none, reads the list again as it opens. Each zone is changed from the Keys page,
    // which asks for no report, so that no answer on its way reads the list after the change.
    const zoneChanged = async (timeZone: string) => {
      await navLink(page, "Keys").click();
      await heading(page, "Keys").waitFor();
      await rt.stores.apps.update(APP_ID, (app) => ({ ...app, timeZone }));
    };
    /** The app list read again, from now on. */
    const listRead = () =>
      page.waitForResponse(
        (response) =>
          response.request().method() === "GET" && new URL(response.url()).pathname === "/v1/apps",
        { timeout: WITHIN.timeout },
      );
    const legend = (zone: string) =>
      page.getByText(
        `Date range (${zone === "UTC" ? "UTC days" : `days of ${zone}`}, both included)`,
      );
    /** Whether the latest day the inputs take is today in the zone, either side of midnight. */
    const latestDayIs = async (days: string[]) =>
      days.includes(String(await page.locator('input[name="to"]').getAttribute("max")));
    const tokyoBefore = tokyoToday();
    const utcBefore = today();
    // The list says UTC; the app counts Tokyo's days.
    await zoneChanged("Asia/Tokyo");
    let read = listRead();
    await navLink(page, "Overview").click();
    await heading(page, "Overview").waitFor();
    await legend("Asia/Tokyo").waitFor(WITHIN);
    await expect.poll(() => latestDayIs([tokyoBefore, tokyoToday()]), WITHIN).toBe(true);
    await read;
    // The list says Tokyo; the app counts UTC's days.
    await zoneChanged("UTC");
    read = listRead();
    await navLink(page, "Cohorts").click();
    await heading(page, "Cohorts").waitFor();
    await legend("UTC").waitFor(WITHIN);
    await expect.poll(() => latestDayIs([utcBefore, today()]), WITHIN).toBe(true);
    await read;
    // The list says UTC; the app counts Tokyo's days.
    await zoneChanged("Asia/Tokyo");
    await navLink(page, "Cost").click();
    await heading(page, "Cost").waitFor();
    await legend("Asia/Tokyo").waitFor(WITHIN);
    await expect.poll(() => latestDayIs([tokyoBefore, tokyoToday()]), WITHIN).toBe(true);
    // Back to UTC for the tests after, the page reloaded: an answer the page keeps 30 s, of the
    // zone its list still names, would otherwise be shown until then.
    await zoneChanged("UTC");
    await page.reload();
    await navLink(page, "Overview").click();
    await legend("UTC").waitFor(WITHIN);
  });

  it("6b. says the service's refusals of settings beside their fields, in words: no internal name, no validation library's message", async () => {
    // Afresh: test 6 left a refused click window in the form.
    await open(page, `/apps/${APP_ID}/settings`);
    await page.reload();
    await heading(page, "Settings").waitFor();
    const name = page.getByLabel("Name", { exact: true });
    const webUrl = page.getByLabel("Web URL");
    const hosts = page.getByLabel("Link hosts (one per line)");
    const title = page.getByLabel("Default preview title");
    await name.fill("N".repeat(201));
    await webUrl.fill("ftp://game.example.com/");
    await hosts.fill("go.example.com\ngo_example");
    // The title's input stops at the service's length, as the Links forms' do.
    await title.fill("T".repeat(101));
    expect(await title.inputValue()).toBe("T".repeat(100));
    const [answer] = await Promise.all([
      page.waitForResponse(
        (response) =>
          response.request().method() === "PATCH" && response.url().endsWith(`/v1/apps/${APP_ID}`),
      ),
      page.getByRole("button", { name: "Save settings" }).click(),
    ]);
    expect(answer.status()).toBe(422);
    // The service names the request's own fields, its bounds in words.
    const { detail } = (await answer.json()) as { detail: string };
    // Every problem at once, the link settings' beside the body's own.
    expect(detail).toBe(
      "name: must be at most 200 characters; " +
        "links.web_url: must be an http or https URL; " +
        "links.hosts[1]: must be a host name, like go.example.com",
    );
    const said = {
      name: "Name must be at most 200 characters",
      webUrl: "Web URL must be an http or https URL",
      hosts: "Link hosts: “go_example” must be a host name, like go.example.com",
    };
    const error = page.locator("#settings-error");
    await expect
      .poll(() => error.locator("li").allInnerTexts(), WITHIN)
      .toEqual([said.name, said.webUrl, said.hosts]);
    const besideOf = async (input: Locator) => {
      expect(await input.getAttribute("aria-invalid")).toBe("true");
      const id = await input.getAttribute("aria-describedby");
      return page.locator(`[id="${id}"]`).innerText();
    };
    expect(await besideOf(name)).toBe(said.name);
    expect(await besideOf(webUrl)).toBe(said.webUrl);
    expect(await besideOf(hosts)).toBe(said.hosts);
    await expect.poll(() => page.evaluate("document.activeElement?.name"), WITHIN).toBe("name");

    // The name right, the link settings' refusals stay, each beside its own field.
    await name.fill(APP_NAME);
    expect(await name.getAttribute("aria-invalid")).toBeNull();
    const [links] = await Promise.all([
      page.waitForResponse(
        (response) =>
          response.request().method() === "PATCH" && response.url().endsWith(`/v1/apps/${APP_ID}`),
      ),
      page.getByRole("button", { name: "Save settings" }).click(),
    ]);
    expect(links.status()).toBe(422);
    expect(((await links.json()) as { detail: string }).detail).toBe(
      "links.web_url: must be an http or https URL; " +
        "links.hosts[1]: must be a host name, like go.example.com",
    );
    await expect.poll(() => besideOf(webUrl), WITHIN).toBe(said.webUrl);
    expect(await besideOf(hosts)).toBe(said.hosts);
    expect(await error.locator("li").allInnerTexts()).toEqual([said.webUrl, said.hosts]);
    expect(await error.innerText()).toMatch(/^Not saved:/);
    const main = await page.getByRole("main").innerText();
    expect(main).not.toMatch(/webUrl|web_url|Too big|expected string/);
    await screenshot(page, "settings-refused");

    // Put right, the settings save; nothing refused stays marked.
    await webUrl.fill("");
    await hosts.fill("");
    await title.fill("");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").filter({ hasText: "Settings saved." }).waitFor(WITHIN);
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(0);
    expect(await error.innerText()).toBe("");
  });

  it("7. lists the latest events of the demo app", async () => {
    const { appId } = demoApp();
    await open(page, `/apps/${appId}/live`);
    await heading(page, "Live").waitFor();
    const rows = page.getByRole("table", { name: "Latest events" }).locator("tbody tr");
    await rows.first().waitFor();
    expect(await rows.count()).toBeGreaterThan(0);
    // The report's window said: the latest events of two UTC days, not of all time.
    await page.getByText("The 50 latest events of yesterday and today (UTC),").waitFor();
    const times = await cellTexts(rows, 0);
    expect(times.every((time) => /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/.test(time))).toBe(
      true,
    );
    // Newest first.
    expect(times).toEqual([...times].sort().reverse());
    // Event names in words (Install, Purchase), the export's own name in the cell's title.
    const names = await cellTexts(rows, 1);
    expect(names.some((name) => name === "Install" || name === "Purchase")).toBe(true);
    expect(names.some((name) => name.includes("service_"))).toBe(false);
    const stored = await rows.first().locator("td").nth(1).getAttribute("title");
    expect(stored).toMatch(/^service_/);
    const platforms = await cellTexts(rows, 6);
    expect(platforms.every((word) => ["Android", "iOS", "—"].includes(word))).toBe(true);
    // Updated at a UTC time written as the table's; the table fits 1280 px without scrolling.
    await expect
      .poll(() => page.getByText(/Last updated/).innerText(), WITHIN)
      .toMatch(/Last updated \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\.$/);
    const box = page.locator(".table-scroll").filter({ has: page.getByRole("table") });
    const { scrollWidth, clientWidth } = await box.evaluate(
      (element: { scrollWidth: number; clientWidth: number }) => ({
        scrollWidth: element.scrollWidth,
        clientWidth: element.clientWidth,
      }),
    );
    expect(scrollWidth, "the latest events' table at 1280 px").toBeLessThanOrEqual(clientWidth);
    // An event id shows its first 8 characters; the whole of it in its title and hidden text.
    const idCell = rows.first().getByTestId("event-id");
    const id = await rows.first().getAttribute("data-event-id");
    expect(id).toBeTruthy();
    expect(await idCell.getAttribute("title")).toBe(id);
    expect(await idCell.locator("[aria-hidden='true']").innerText()).toBe(`${id?.slice(0, 8)}…`);
    expect(await idCell.locator(".visually-hidden").textContent()).toBe(id);
    await screenshot(page, "live");
  });

  it("8. downloads a CSV export of the window: the export's columns and its events", async () => {
    const { appId } = demoApp();
    await open(page, `/apps/${appId}/export`);
    await heading(page, "Export").waitFor();
    await page.getByLabel("Format").selectOption("csv");
    await page.getByLabel("Start date").fill(range.from);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    const text = await readFile(await download.path(), "utf8");
    const [header, ...rows] = text.split(/\r?\n/).filter((line) => line !== "");
    expect(header?.replace(/^\uFEFF/, "")).toBe(COLUMN_NAMES.join(","));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.includes(appId))).toBe(true);
    await page
      .getByRole("status")
      .filter({ hasText: `Downloaded ${download.suggestedFilename()}` })
      .waitFor();
    await screenshot(page, "export");

    // A page asked before the start date changes offers no next page of the export it no
    // longer is (that page's snapshot is of the other window).
    await page.getByLabel("Page size (events)").fill("1");
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route("**/api/v1/export**", async (route) => {
      await held;
      await route.continue();
    });
    try {
      const late = page.waitForEvent("download");
      await page.getByRole("button", { name: "Download" }).click();
      await page.getByLabel("Start date").fill(range.to);
      release();
      await late;
      await expect
        .poll(() => page.getByRole("button", { name: "Download" }).isEnabled(), WITHIN)
        .toBe(true);
      expect(await page.getByRole("button", { name: "Next page" }).count()).toBe(0);
    } finally {
      await page.unroute("**/api/v1/export**");
    }
  });

  it("9. shows a second person none of the owner's apps", async () => {
    await addUser(
      { users: rt.stores.users, credentials: createPasswordCredentials(rt.stores.users) },
      SECOND,
    );
    const context = await browser.newContext({ viewport: DESKTOP, reducedMotion: "reduce" });
    try {
      const theirs = await context.newPage();
      await theirs.goto(`${rt.url}/`);
      await heading(theirs, "Sign in").waitFor();
      await theirs.getByLabel("Email").fill(SECOND.email);
      await theirs.getByLabel("Password").fill(SECOND.password);
      await theirs.getByRole("button", { name: "Sign in" }).click();
      await heading(theirs, "Apps").waitFor();
      await theirs.getByText("No apps yet.").waitFor();
      expect(await theirs.getByRole("table", { name: "Apps" }).count()).toBe(0);
      expect(await theirs.getByLabel("Current app").count()).toBe(0);
      expect(await theirs.getByText(APP_NAME).count()).toBe(0);
      await screenshot(theirs, "second-user-apps");

      // The owner's app by its address: the service refuses its report (401, as for a session
      // that is over); the page asks the session, which holds, so it says so and stays signed in.
      const [report] = await Promise.all([
        theirs.waitForResponse((response) => response.url().includes("/v1/reports/overview")),
        open(theirs, `/apps/${APP_ID}/overview`),
      ]);
      expect(report.status()).toBe(401);
      await theirs
        .getByRole("alert")
        .filter({ hasText: "This app is not one you may see, or it does not exist." })
        .waitFor();
      expect(new URL(theirs.url()).hash).toBe(`#/apps/${APP_ID}/overview`);
      expect(await heading(theirs, "Sign in").count()).toBe(0);
      const header = theirs.getByRole("banner");
      expect(await header.getByText(SECOND.email, { exact: true }).isVisible()).toBe(true);
      expect(await header.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
      expect(await theirs.getByTestId("total-installs").count()).toBe(0);
      // Not remembered, not offered in the picker; the way back is the Apps page.
      expect(await theirs.getByLabel("Current app").count()).toBe(0);
      expect(await theirs.evaluate("localStorage.getItem('attribution.dashboard.app')")).toBeNull();
      const toApps = theirs.getByRole("main").getByRole("link", { name: /Apps page/ });
      expect(await toApps.getAttribute("href")).toBe("#/apps");
      await screenshot(theirs, "second-user-owners-app");
      expect(await theirs.getByText(APP_NAME).count()).toBe(0);
      expect((await apiGet(context, `/v1/apps/${APP_ID}`)).status).toBe(401);
      expect((await apiGet(context, "/v1/session")).status).toBe(200);
      await toApps.click();
      await heading(theirs, "Apps").waitFor();
      await theirs.getByText("No apps yet.").waitFor();
    } finally {
      await context.close();
    }
  });

  /** The generic partner's endpoint carries a token, which every URL the page shows masks. */
  const PARTNER_TOKEN = "s3cret_partner_token";

  it("9b. adds a partner on the Partners page: a private address refused at the form, then the mock network's, whose test postbacks show the request, token masked, and the answer", async () => {
    await open(page, `/apps/${APP_ID}/overview`);
    await navLink(page, "Partners").click();
    await heading(page, "Partners").waitFor();
    await page.getByText("No partners yet").waitFor();
    await page.getByRole("button", { name: "Add a partner" }).click();
    const form = page.getByRole("form", { name: "Add a partner" });
    await form.getByLabel("Partner", { exact: true }).selectOption("generic");
    await form.getByLabel("Configuration id").fill("examplenet");
    await form.getByLabel("Media sources (comma-separated)").fill("browser_qr");
    await form.getByRole("button", { name: "Add an event" }).click();
    await form.getByLabel("Our event name").fill("service_purchase");
    await form.getByLabel("The partner's name").fill("purchase");
    await form.getByLabel("With revenue").check();
    const endpoint = form.getByLabel("Endpoint");
    await endpoint.fill("https://10.0.0.1/");

    const saving = () =>
      page.waitForResponse(
        (response) =>
          response.request().method() === "PUT" &&
          response.url().includes("/v1/postbacks/partners/examplenet"),
      );
    const [refused] = await Promise.all([
      saving(),
      form.getByRole("button", { name: "Save partner" }).click(),
    ]);
    expect(refused.status()).toBe(422);
    // The service names the body's field; the form names its own, beside the input.
    const said = "Endpoint: https://10.0.0.1/ points to a private address (10.0.0.1)";
    const problems = page.locator("#partner-form-problems");
    await expect.poll(() => problems.innerText(), WITHIN).toBe(`Not saved. ${said}`);
    expect(await problems.getAttribute("role")).toBe("alert");
    expect(await endpoint.getAttribute("aria-invalid")).toBe("true");
    const reasonIds = (await endpoint.getAttribute("aria-describedby"))?.split(" ") ?? [];
    expect(await page.locator(`[id="${reasonIds[0]}"]`).innerText()).toBe(said);
    await expect
      .poll(() => page.evaluate("document.activeElement?.name"), WITHIN)
      .toBe("value_endpoint");
    const listed = async () =>
      (await apiGet(owner, `/v1/postbacks?app_id=${APP_ID}`)).body as {
        partners: Record<string, unknown>[];
        webhooks: Record<string, unknown>[];
        counts: Record<string, unknown>[];
      };
    expect((await listed()).partners).toEqual([]);
    await screenshot(page, "partners-refused");

    await endpoint.fill(`${mock.url}/partner?token=${PARTNER_TOKEN}`);
    expect(await endpoint.getAttribute("aria-invalid")).toBeNull();
    await form.getByRole("button", { name: "Save partner" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: "Partner configuration examplenet saved." })
      .waitFor(WITHIN);
    expect(await form.count()).toBe(0);
    const row = page
      .getByRole("table", { name: "Partner configurations" })
      .locator('tr[data-config-id="examplenet"]');
    // The page says "saved" at once and then reads the list again: the row follows.
    await row.waitFor(WITHIN);
    expect(await row.locator("td").allInnerTexts()).toEqual(
      expect.arrayContaining([
        "examplenet\nGeneric server-to-server",
        "Won by browser_qr",
        "Purchase → purchase (with revenue)",
        "180 days",
        "On",
      ]),
    );
    expect((await listed()).partners).toMatchObject([
      {
        id: "examplenet",
        partner: "generic",
        media_sources: ["browser_qr"],
        installs: "won",
        events: { service_purchase: { name: "purchase", revenue: true } },
        enabled: true,
      },
    ]);

    // The install's test postback: the mock network gets the token, the page shows it masked.
    await row.getByRole("button", { name: "Send a test postback to examplenet" }).click();
    const panel = page.getByRole("region", { name: "Test postback to examplenet" });
    await panel.getByRole("button", { name: "Send test postback" }).click();
    const [install] = await mock.waitFor((request) => request.path === "/partner");
    expect(install?.query.get("token")).toBe(PARTNER_TOKEN);
    expect(install?.query.get("event")).toBe("install");
    await panel.getByTestId("test-result").waitFor(WITHIN);
    expect(await panel.getByTestId("test-method").innerText()).toBe("GET");
    expect(await panel.getByTestId("test-status").innerText()).toBe("200");
    expect(await panel.getByTestId("test-answer").innerText()).toBe("ok");
    expect(await panel.getByTestId("test-verdict").innerText()).toMatch(/^Delivered/);
    // A partner that matches on no advertising id: real postbacks meet nothing the test does not.
    expect(await panel.getByTestId("test-warnings").count()).toBe(0);
    const shown = await panel.getByTestId("test-url").innerText();
    expect(shown.startsWith(`${mock.url}/partner?token=***&event=install&`)).toBe(true);
    expect(shown).toContain(`app_id=${APP_ID}`);
    expect(await page.locator("main").innerText()).not.toContain(PARTNER_TOKEN);
    await screenshot(page, "partners-test");

    // A mapped event's: its name and revenue as the partner's.
    await panel.getByLabel("What to send").selectOption("event:service_purchase");
    await panel.getByRole("button", { name: "Send test postback" }).click();
    const [, event] = await mock.waitFor((request) => request.path === "/partner", 2);
    expect(event?.query.get("event")).toBe("purchase");
    expect(event?.query.get("revenue")).toBe("1.99");
    await expect
      .poll(() => panel.getByTestId("test-url").innerText(), WITHIN)
      .toContain("event=purchase&");
    expect(await panel.getByTestId("test-url").innerText()).toContain("token=***&");
    // A test is neither logged nor counted.
    await page.getByRole("table", { name: "Partner configurations" }).waitFor();
    expect(await row.getByTestId("delivered").innerText()).toBe("0");
    await page
      .getByRole("region", { name: "Delivery log", exact: true })
      .getByText("No attempts yet.")
      .waitFor();

    // Closing the test panel, or the partner's form, gives the focus back to the button that
    // opened it.
    await panel.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => panel.count(), WITHIN).toBe(0);
    await expect.poll(() => focused(page), WITHIN).toBe("Send a test postback to examplenet");
    await row.getByRole("button", { name: "Edit partner examplenet" }).click();
    const editForm = page.getByRole("form", { name: "Partner examplenet" });
    await editForm.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => editForm.count(), WITHIN).toBe(0);
    await expect.poll(() => focused(page), WITHIN).toBe("Edit partner examplenet");
  });

  /** The backend's webhook URL carries a token, which the API and the page show masked. */
  const WEBHOOK_TOKEN = "s3cret_webhook_token";

  it("9c. adds a webhook whose signing secret is shown once and whose URL's token is shown masked, kept by an edit; a real install's delivery is in the log, on the Partners page and on the overview", async () => {
    const hookUrl = `${mock.url}/hook?access_token=${WEBHOOK_TOKEN}`;
    const maskedHookUrl = `${mock.url}/hook?access_token=***`;
    await open(page, `/apps/${APP_ID}/partners`);
    await heading(page, "Partners").waitFor();
    await page.getByRole("button", { name: "Add a webhook" }).click();
    const form = page.getByRole("form", { name: "Add a webhook" });
    expect(await form.getByLabel("Webhook id").inputValue()).toBe("backend");
    await form.getByLabel("URL (https)").fill(hookUrl);
    await form.getByRole("button", { name: "Save webhook" }).click();
    await page.getByRole("status").filter({ hasText: "Webhook backend saved." }).waitFor(WITHIN);
    const secretField = page.getByLabel("Signing secret");
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(await secretField.getAttribute("aria-describedby")).toBe("new-secret-warning");
    await page.getByText("Copy it now: this secret will not be shown again.").waitFor();
    await screenshot(page, "partners-webhook-secret");
    // Once: not in the list's answer, not on the page once it is opened again.
    expect(
      JSON.stringify((await apiGet(owner, `/v1/postbacks?app_id=${APP_ID}`)).body),
    ).not.toContain(secret);
    await page.reload();
    const webhook = page
      .getByRole("table", { name: "Webhooks" })
      .locator('tr[data-webhook-id="backend"]');
    await webhook.waitFor();
    expect(await page.getByLabel("Signing secret").count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // The URL's token is masked in the list's answer and on the page, as in the delivery log.
    const listed = (await apiGet(owner, `/v1/postbacks?app_id=${APP_ID}`)).body as {
      webhooks: { id: string; url: string }[];
    };
    expect(listed.webhooks.find((one) => one.id === "backend")?.url).toBe(maskedHookUrl);
    expect(JSON.stringify(listed)).not.toContain(WEBHOOK_TOKEN);
    expect(await webhook.locator("td").nth(1).innerText()).toBe(maskedHookUrl);
    expect(await page.content()).not.toContain(WEBHOOK_TOKEN);
    // Edited and saved with the URL as shown (switched off and on again): the token stays.
    const storedUrl = async () =>
      (await rt.stores.postbackConfigs.getWebhook(APP_ID, "backend"))?.url;
    await webhook.getByRole("button", { name: "Edit webhook backend" }).click();
    const edit = page.getByRole("form", { name: "Webhook backend" });
    expect(await edit.getByLabel("URL (https)").inputValue()).toBe(maskedHookUrl);
    await edit.getByRole("button", { name: "Save webhook" }).click();
    await page.getByRole("status").filter({ hasText: "Webhook backend saved." }).waitFor(WITHIN);
    expect(await storedUrl()).toBe(hookUrl);
    expect(await page.content()).not.toContain(WEBHOOK_TOKEN);

    // The test delivery is signed with the secret the page showed.
    await webhook.getByRole("button", { name: "Send a test delivery to webhook backend" }).click();
    const panel = page.getByRole("region", { name: "Test delivery to webhook backend" });
    await panel.getByRole("button", { name: "Send test delivery" }).click();
    const [tested] = await mock.waitFor((request) => request.path === "/hook");
    // Sent to the URL as stored, its token whole.
    expect(tested?.query.get("access_token")).toBe(WEBHOOK_TOKEN);
    const header = tested?.headers[SIGNATURE_HEADER.toLowerCase()];
    expect(
      verifySignature({
        secrets: [secret],
        body: tested?.body ?? Buffer.alloc(0),
        header: typeof header === "string" ? header : null,
        now: new Date(),
      }),
    ).toMatchObject({ ok: true });
    await expect.poll(() => panel.getByTestId("test-status").innerText(), WITHIN).toBe("200");
    expect(await panel.getByTestId("test-method").innerText()).toBe("POST");
    await panel.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => focused(page), WITHIN).toBe("Send a test delivery to webhook backend");

    // A real install, organic (its address tapped nothing): the webhook hears of it once its
    // attribution is resolved; the partner, whose media source did not win it, does not.
    const sdk = await issueKey(APP_ID, "sdk", rt.stores.keys);
    const serviceId = randomUUID();
    const installed = await rt.post("/v1/installs", androidInstallRequest(serviceId), sdk.key, {
      "x-forwarded-for": "198.51.100.77",
    });
    await installed.body?.cancel();
    expect(installed.status).toBe(202);
    const delivered = (request: { path: string; body: Buffer }) =>
      request.path === "/hook" && request.body.toString("utf8").includes(serviceId);
    await mock.waitFor(delivered, 1, 60_000);
    await expect
      .poll(async () => {
        const { body } = await apiGet(owner, `/v1/postbacks/log?app_id=${APP_ID}`);
        return (body as { data: { service_id: string }[] }).data.filter(
          (entry) => entry.service_id === serviceId,
        ).length;
      }, WITHIN)
      .toBe(1);
    expect(mock.to("/partner")).toHaveLength(2);

    const refresh = page
      .getByRole("region", { name: "Delivery log", exact: true })
      .getByRole("button", { name: "Refresh" });
    await refresh.click();
    const attempts = page.getByRole("table", { name: "Delivery log" }).locator("tbody tr");
    await attempts.first().waitFor(WITHIN);
    // The log read again in place: Refresh keeps the keyboard's focus.
    await expect
      .poll(
        () => refresh.evaluate((button) => button === button.ownerDocument.activeElement),
        WITHIN,
      )
      .toBe(true);
    expect(await attempts.count()).toBe(1);
    const cells = await attempts.first().locator("td").allInnerTexts();
    expect(cells[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    expect(cells.slice(1, 6)).toEqual([
      "backend\nwebhook",
      `Install\n${serviceId.slice(0, 8)}…`,
      "1",
      "200",
      "Delivered",
    ]);
    expect(cells[6]).toBe(`POST ${maskedHookUrl}`);
    await expect.poll(() => webhook.getByTestId("delivered").innerText(), WITHIN).toBe("1");
    expect(await webhook.getByTestId("failed").innerText()).toBe("0");
    expect(await webhook.getByTestId("skipped").innerText()).toBe("0");
    await screenshot(page, "partners");

    await navLink(page, "Overview").click();
    await heading(page, "Overview").waitFor();
    const counted = page
      .getByRole("table", { name: "Postbacks, last 30 days" })
      .locator('tr[data-config-id="backend"]');
    await counted.waitFor(WITHIN);
    expect(await counted.locator("th, td").allInnerTexts()).toEqual([
      "backend",
      "webhook",
      "1",
      "0",
      "0",
      "0",
    ]);

    // A webhook deleted: Cancel gives the focus back to its Delete button, and once its row is
    // gone, the list's heading has it.
    await navLink(page, "Partners").click();
    await heading(page, "Partners").waitFor();
    // Cancel gives the focus back to the button that opened the form.
    await page.getByRole("button", { name: "Add a webhook" }).click();
    await page
      .getByRole("form", { name: "Add a webhook" })
      .getByRole("button", { name: "Cancel" })
      .click();
    await expect
      .poll(() => page.evaluate("document.activeElement?.textContent"), WITHIN)
      .toBe("Add a webhook");
    await page.getByRole("button", { name: "Add a webhook" }).click();
    const spareForm = page.getByRole("form", { name: "Add a webhook" });
    await spareForm.getByLabel("Webhook id").fill("spare");
    await spareForm.getByLabel("URL (https)").fill(`${mock.url}/spare`);
    await spareForm.getByRole("button", { name: "Save webhook" }).click();
    await page.getByRole("status").filter({ hasText: "Webhook spare saved." }).waitFor(WITHIN);
    const spare = page
      .getByRole("table", { name: "Webhooks" })
      .locator('tr[data-webhook-id="spare"]');
    await spare.getByRole("button", { name: "Delete webhook spare" }).click();
    await spare.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => focused(page), WITHIN).toBe("Delete webhook spare");
    await spare.getByRole("button", { name: "Delete webhook spare" }).click();
    // Confirm delete pressed twice while its request is on its way: one delete, no "not found".
    const deletes = await holdRequests(page, "**/v1/postbacks/webhooks/spare**", "DELETE");
    const confirmDelete = spare.getByRole("button", { name: "Confirm delete" });
    await confirmDelete.click();
    // On its way, and held: the second press comes while it is.
    await expect.poll(() => deletes.held(), WITHIN).toBe(1);
    await confirmDelete.click();
    await deletes.release();
    await page.getByRole("status").filter({ hasText: "Webhook spare deleted." }).waitFor(WITHIN);
    expect(deletes.held()).toBe(1);
    expect(await page.getByRole("alert").filter({ hasText: /\S/ }).count()).toBe(0);
    await expect.poll(() => spare.count(), WITHIN).toBe(0);
    await expect.poll(() => focused(page), WITHIN).toBe("webhooks-heading");
  });

  it("9d. edits an iOS app's SKAdNetwork schema (a fine value of 64 refused at its field) and ad network names; its overview counts Apple's samples and decodes their values; the owner's Apps page counts a postback of no app", async () => {
    // The app, made for iOS through the Apps page, and its App Store id through Settings: the
    // service finds a postback's app by it.
    await open(page, "/apps");
    await heading(page, "Apps").waitFor();
    await page.getByLabel("App id").fill(IOS_APP_ID);
    await page.getByLabel("Name", { exact: true }).fill(IOS_APP_NAME);
    await page.getByLabel("Platform").selectOption("ios");
    await page.getByRole("button", { name: "Create app" }).click();
    const app = page
      .getByRole("table", { name: "Apps" })
      .locator(`tr[data-app-id="${IOS_APP_ID}"]`);
    await app.getByRole("link", { name: IOS_APP_NAME }).click();
    await heading(page, "Overview").waitFor();
    // Without its App Store id, which Apple's postbacks name an app by, none can reach it.
    await navLink(page, "SKAdNetwork").click();
    await heading(page, "SKAdNetwork").waitFor();
    await expect
      .poll(() => page.getByTestId("no-app-store-id").innerText(), WITHIN)
      .toMatch(/^This app has no App Store id, and Apple's postbacks name an app by it/);
    await navLink(page, "Settings").click();
    await heading(page, "Settings").waitFor();
    await page.getByLabel("App Store id").fill(APP_STORE_ID);
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByRole("status").filter({ hasText: "Settings saved." }).waitFor(WITHIN);

    // Apple's samples as devices post them to the link host, one tampered with, and one naming
    // an App Store id no app has.
    const tampered = { ...SKAN_4_FINE, "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e99" };
    const ofNoApp = {
      ...SKAN_4_FINE,
      "app-id": 1111111111,
      "transaction-id": "6aafb7a5-0170-41b5-bbe4-fe71dedf1e77",
    };
    for (const sample of [SKAN_4_FINE, SKAN_4_COARSE, tampered, ofNoApp]) {
      const response = await fetch(`${rt.linkUrl}/.well-known/skadnetwork/report-attribution/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(sample),
      });
      expect(response.status).toBe(200);
      await response.body?.cancel();
    }
    // The report reads the lake's postbacks: they are there once verified and delivered to it.
    const lastWeek = `from=${dayBefore(today(), 6)}&to=${today()}`;
    await expect
      .poll(async () => {
        await rt.flush();
        const { body } = await apiGet(
          owner,
          `/v1/skadnetwork/report?app_id=${IOS_APP_ID}&${lastWeek}`,
        );
        return (body as { postbacks?: { received: number } }).postbacks?.received;
      }, PAST_REPORT_CACHE)
      .toBe(3);

    await navLink(page, "SKAdNetwork").click();
    await heading(page, "SKAdNetwork").waitFor();
    await expect
      .poll(() => page.getByTestId("schema-version").innerText(), WITHIN)
      .toMatch(/^No schema yet/);
    expect(await page.getByTestId("no-app-store-id").count()).toBe(0);
    const form = page.getByRole("form", { name: "Conversion value schema" });
    await form.getByRole("button", { name: "Add a rule to window 1" }).click();
    const first = form.getByRole("group", { name: "Window 1, Rule 1", exact: true });
    // The new rule's first input has the focus.
    await expect
      .poll(() => page.evaluate("document.activeElement?.name"), WITHIN)
      .toBe("w0_r0_event");
    await first.getByLabel("Event", { exact: true }).fill("service_purchase");
    await first.getByLabel("Revenue from (USD)").fill("4.99");
    const fine = first.getByLabel("Fine value (1–63)");
    await fine.fill("64");
    await first.getByLabel("Coarse value").selectOption("high");
    await form.getByRole("button", { name: "Add a rule to window 2" }).click();
    const later = form.getByRole("group", { name: "Window 2, Rule 1", exact: true });
    // Once the new rule has the focus, which would otherwise take the text of a later input.
    await expect
      .poll(() => page.evaluate("document.activeElement?.name"), WITHIN)
      .toBe("w1_r0_event");
    await later.getByLabel("Event", { exact: true }).fill("service_purchase");
    await later.getByLabel("Times, at least").fill("2");
    await later.getByLabel("Coarse value").selectOption("medium");
    await later.getByLabel("Lock the window").check();
    // Apple takes fine values in the first window only.
    expect(await later.getByLabel("Fine value (1–63)").count()).toBe(0);

    const saving = () =>
      page.waitForResponse(
        (response) =>
          response.request().method() === "PUT" &&
          response.url().includes("/v1/skadnetwork/schema"),
      );
    const [refused] = await Promise.all([
      saving(),
      form.getByRole("button", { name: "Save schema" }).click(),
    ]);
    expect(refused.status()).toBe(422);
    expect(((await refused.json()) as { detail: string }).detail).toBe(
      "body.windows[0].rules[0].fine: must be from 1 to 63",
    );
    // The service names the body's field; the page names its own, beside the input.
    const said = "Fine value must be from 1 to 63";
    const problems = page.locator("#schema-problems");
    await expect
      .poll(() => problems.innerText(), WITHIN)
      .toBe(`Not saved. Window 1, rule 1: ${said}`);
    expect(await problems.getAttribute("role")).toBe("alert");
    expect(await fine.getAttribute("aria-invalid")).toBe("true");
    const reasonIds = (await fine.getAttribute("aria-describedby"))?.split(" ") ?? [];
    expect(await page.locator(`[id="${reasonIds[0]}"]`).innerText()).toBe(said);
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(1);
    await expect
      .poll(() => page.evaluate("document.activeElement?.name"), WITHIN)
      .toBe("w0_r0_fine");
    const storedSchema = async () =>
      (await apiGet(owner, `/v1/skadnetwork/schema?app_id=${IOS_APP_ID}`)).body;
    expect(await storedSchema()).toEqual({ schema: null });
    await screenshot(page, "skadnetwork-refused");

    await fine.fill("63");
    expect(await fine.getAttribute("aria-invalid")).toBeNull();
    await form.getByRole("button", { name: "Save schema" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: "Schema saved as version 1." })
      .waitFor(WITHIN);
    expect(await problems.innerText()).toBe("");
    expect(await page.getByTestId("schema-version").innerText()).toMatch(
      /^Version 1, saved \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\.$/,
    );
    expect(await storedSchema()).toMatchObject({
      schema: {
        version: 1,
        windows: [
          {
            rules: [
              {
                event: "service_purchase",
                min_count: 1,
                revenue_usd: { min: 4.99 },
                fine: 63,
                coarse: "high",
                lock: false,
              },
            ],
          },
          { rules: [{ event: "service_purchase", min_count: 2, coarse: "medium", lock: true }] },
          { rules: [] },
        ],
      },
    });
    // The form shows the schema as saved.
    expect(await first.getByLabel("Fine value (1–63)").inputValue()).toBe("63");
    expect(await later.getByLabel("Lock the window").isChecked()).toBe(true);

    // The ad network of Apple's samples, named: an id that is none refused at its input first.
    const names = page.getByRole("form", { name: "Name an ad network" });
    const networkId = names.getByLabel("Ad network id");
    await networkId.fill("not an id!");
    await names.getByLabel("Media source").fill("example_network");
    await names.getByRole("button", { name: "Save name" }).click();
    await expect
      .poll(() => page.locator("#network-problems").innerText(), WITHIN)
      .toMatch(/^Not saved\. Ad network id must be an id as the network publishes it/);
    expect(await networkId.getAttribute("aria-invalid")).toBe("true");
    // A name saved elsewhere since the page read its list (the API, the CLI, another person):
    // the form's save, which replaces the app's whole list, keeps it.
    const { csrf_token: csrfToken } = (await apiGet(owner, "/v1/session")).body as {
      csrf_token: string;
    };
    const elsewhere = await owner.request.put(
      `${rt.url}/v1/skadnetwork/networks?app_id=${IOS_APP_ID}`,
      {
        headers: { "X-CSRF-Token": csrfToken },
        data: { networks: { "elsewhere.skadnetwork": "elsewhere_network" } },
      },
    );
    expect(elsewhere.status()).toBe(200);
    await networkId.fill("com.example");
    await names.getByRole("button", { name: "Save name" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: "com.example is reported as example_network." })
      .waitFor(WITHIN);
    expect(
      await page
        .getByRole("table", { name: "Ad network names" })
        .locator('tr[data-network-id="elsewhere.skadnetwork"] td')
        .allInnerTexts(),
    ).toEqual(expect.arrayContaining(["elsewhere_network", "This app"]));
    const named = page
      .getByRole("table", { name: "Ad network names" })
      .locator('tr[data-network-id="com.example"]');
    expect((await named.locator("th, td").allInnerTexts()).slice(0, 3)).toEqual([
      "com.example",
      "example_network",
      "This app",
    ]);
    // The catalog's names stay beside the app's own.
    expect(
      await page
        .getByRole("table", { name: "Ad network names" })
        .locator('tr[data-network-id="cstr6suwn9.skadnetwork"] td')
        .allInnerTexts(),
    ).toEqual(expect.arrayContaining(["googleadwords_int", "Catalog"]));
    await screenshot(page, "skadnetwork");

    // The overview's SKAdNetwork section: the two samples counted, the tampered one received.
    await navLink(page, "Overview").click();
    await heading(page, "Overview").waitFor();
    const section = page.getByRole("region", { name: "SKAdNetwork", exact: true });
    const figure = (name: string) => section.getByTestId(`skadnetwork-${name}`);
    await expect.poll(() => figure("counted").getAttribute("data-value"), WITHIN).toBe("2");
    expect(await figure("received").getAttribute("data-value")).toBe("3");
    expect(await figure("unverified").getAttribute("data-value")).toBe("1");
    expect(await figure("development").getAttribute("data-value")).toBe("0");
    // No postback's values disputed: no card for them.
    expect(await figure("disputed").count()).toBe(0);
    // The schema's one revenue rule, 4.99 USD and up, gives both values: $4.99 each at least.
    expect(await figure("revenue").innerText()).toBe("$9.98+");
    expect(await figure("revenue").getAttribute("data-min")).toBe("9.98");
    const rowsOf = async (table: Locator) =>
      Promise.all(
        (await table.locator("tbody tr").all()).map((row) => row.locator("td").allInnerTexts()),
      );
    expect(
      await rowsOf(section.getByRole("table", { name: "Installs by media source and campaign" })),
    ).toEqual([
      // The later windows' postbacks by two digits, beside the range's installs ending in them.
      [
        "example_network\ncom.example",
        "39",
        "1",
        "0",
        "0",
        "0\nbeside 2 installs ending in 39 in the range",
        "$4.99+\nlater windows: $0.00",
      ],
      ["example_network\ncom.example", "5239", "1", "0", "0", "—", "$4.99+"],
    ]);
    expect(
      await section
        .getByRole("table", { name: "Installs by media source and campaign" })
        .locator("thead th")
        .allInnerTexts(),
    ).toEqual([
      "Media source",
      "Campaign (source identifier)",
      "Installs",
      "Redownloads",
      "Re-engagements",
      "Later windows' postbacks",
      "Revenue stated (USD)",
    ]);
    // The fine value and the coarse-only one, each read back as the rule that gives it.
    expect(
      await rowsOf(section.getByRole("table", { name: "Conversion values by window" })),
    ).toEqual([
      ["Install", "1", "63 (fine)", "1", "Purchase, 4.99+ USD", "$4.99+"],
      ["Install", "1", "high (coarse)", "1", "Purchase, 4.99+ USD", "$4.99+"],
    ]);
    expect(await section.getByTestId("tier-fine").getAttribute("data-value")).toBe("1");
    expect(await section.getByTestId("tier-coarse_only").getAttribute("data-value")).toBe("1");
    expect(await section.getByTestId("tier-none").getAttribute("data-value")).toBe("0");
    expect(await section.locator("li[data-tier]").count()).toBe(3);
    await screenshot(page, "overview-skadnetwork");

    // Development postbacks on request: the report is asked for them.
    const [withDevelopment] = await Promise.all([
      page.waitForResponse(
        (response) =>
          response.url().includes("/v1/skadnetwork/report") &&
          response.url().includes("include=development"),
      ),
      section.getByLabel("Include development postbacks").check(),
    ]);
    expect(withDevelopment.status()).toBe(200);
    await section
      .getByText("Postbacks verified with Apple's production key or a development key count.")
      .waitFor(WITHIN);
    expect(await figure("counted").getAttribute("data-value")).toBe("2");

    // A choice whose report does not come says so, with no figures of the choice before.
    const reportUrl = "**/v1/skadnetwork/report**";
    await page.route(reportUrl, (route) => route.abort("connectionrefused"));
    await section.getByLabel("Include development postbacks").uncheck();
    await expect
      .poll(() => section.getByRole("alert").innerText(), WITHIN)
      .toBe("The service could not be reached.");
    expect(await figure("counted").count()).toBe(0);
    expect(
      await section.getByRole("table", { name: "Installs by media source and campaign" }).count(),
    ).toBe(0);
    await page.unroute(reportUrl);

    // A range whose postbacks came and none counted says why, not the setup to check: tests'
    // postbacks, counted once the box is ticked; with it ticked, unverified ones.
    await page.route(reportUrl, async (route) => {
      const response = await route.fetch();
      const report = (await response.json()) as Record<string, unknown>;
      const postbacks = route.request().url().includes("include=development")
        ? { received: 2, counted: 0, unverified: 2, development: 0, disputed: 0 }
        : { received: 2, counted: 0, unverified: 0, development: 2, disputed: 0 };
      await route.fulfill({ response, json: { ...report, postbacks } });
    });
    const noneCounted = section.getByTestId("skadnetwork-none-counted");
    await section.getByLabel("Include development postbacks").check();
    await expect
      .poll(() => noneCounted.innerText(), WITHIN)
      .toMatch(
        /^2 postbacks came in this range, none of them counted\. 2 postbacks could not be verified with Apple's keys, .*\(include=unverified\)\.$/,
      );
    await section.getByLabel("Include development postbacks").uncheck();
    await expect
      .poll(() => noneCounted.innerText(), WITHIN)
      .toMatch(
        /^2 postbacks came in this range, none of them counted\. 2 postbacks verified with a development key .*: tick "Include development postbacks" to count them\.$/,
      );
    await page.unroute(reportUrl);

    // An Android-only app has neither the page nor the section.
    const [android] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith(`/v1/apps/${APP_ID}`)),
      open(page, `/apps/${APP_ID}/overview`),
    ]);
    expect(android.status()).toBe(200);
    await heading(page, "Overview").waitFor();
    await page.getByTestId("total-installs").waitFor(WITHIN);
    expect(await navLink(page, "Partners").count()).toBe(1);
    expect(await navLink(page, "SKAdNetwork").count()).toBe(0);
    expect(await page.getByRole("region", { name: "SKAdNetwork", exact: true }).count()).toBe(0);

    // An app registered for Android whose links name an App Store id ships on iOS too.
    const both = "com.example.browser.both";
    await rt.createApp(both, "android");
    await rt.stores.apps.update(both, (made) => ({ ...made, links: { appStoreId: "1234567891" } }));
    await open(page, `/apps/${both}/overview`);
    await heading(page, "Overview").waitFor();
    await navLink(page, "SKAdNetwork").waitFor(WITHIN);
    await page.getByRole("region", { name: "SKAdNetwork", exact: true }).waitFor(WITHIN);

    // The postback of no app, on the Apps page of the owner (an admin of the service).
    await open(page, "/apps");
    await heading(page, "Apps").waitFor();
    const noApp = page.getByRole("table", { name: "Postbacks of no app" });
    await noApp.waitFor(WITHIN);
    expect(await noApp.locator('tr[data-app-store-id="1111111111"] td').allInnerTexts()).toEqual([
      "1111111111",
      "1",
      "0",
      "0",
      expect.any(String),
      "—",
    ]);
    expect(await noApp.locator("tbody tr").count()).toBe(1);
    // The id set since: its postback stays under no app, and the row names the app it is now.
    await rt.stores.apps.update(both, (made) => ({ ...made, links: { appStoreId: "1111111111" } }));
    await page.reload();
    await heading(page, "Apps").waitFor();
    await expect
      .poll(() => noApp.locator('tr[data-app-store-id="1111111111"] td').last().innerText(), WITHIN)
      .toBe(both);
    await rt.stores.apps.update(both, (made) => ({ ...made, links: { appStoreId: "1234567891" } }));

    // The same App Store id for another app: the service's conflict said beside the input.
    await open(page, `/apps/${APP_ID}/settings`);
    await heading(page, "Settings").waitFor();
    const taken = page.getByLabel("App Store id");
    await expect
      .poll(() => page.getByLabel("Name", { exact: true }).inputValue(), WITHIN)
      .not.toBe("");
    await taken.fill(APP_STORE_ID);
    const [conflict] = await Promise.all([
      page.waitForResponse(
        (response) =>
          response.request().method() === "PATCH" && response.url().endsWith(`/v1/apps/${APP_ID}`),
      ),
      page.getByRole("button", { name: "Save settings" }).click(),
    ]);
    expect(conflict.status()).toBe(409);
    await refusedBeside(
      taken,
      `App Store id ${APP_STORE_ID} is app ${IOS_APP_ID}'s already: Apple's postbacks name their app by it, so it can be one app's only.`,
      page.locator("#settings-error"),
    );
    await taken.fill("");
    expect(await taken.getAttribute("aria-invalid")).toBeNull();
    expect((await rt.stores.apps.get(APP_ID))?.links?.appStoreId).toBeUndefined();

    // The Android app's iOS build: its bundle id, which an iOS app's settings do not offer.
    await open(page, `/apps/${both}/settings`);
    await heading(page, "Settings").waitFor();
    const bundle = page.getByLabel("iOS bundle id");
    await expect
      .poll(() => page.getByLabel("App Store id").inputValue(), WITHIN)
      .toBe("1234567891");
    expect(await page.getByLabel("Google Play package").count()).toBe(0);
    await bundle.fill("not a bundle id");
    await page.getByRole("button", { name: "Save settings" }).click();
    await refusedBeside(
      bundle,
      "iOS bundle id must be an iOS bundle id, like com.example.app",
      page.locator("#settings-error"),
    );
    await bundle.fill("com.example.browser.both.ios");
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect
      .poll(async () => (await rt.stores.apps.get(both))?.links?.iosBundleId, WITHIN)
      .toBe("com.example.browser.both.ios");
    await open(page, `/apps/${IOS_APP_ID}/settings`);
    await heading(page, "Settings").waitFor();
    await page.getByLabel("Google Play package").waitFor(WITHIN);
    expect(await page.getByLabel("iOS bundle id").count()).toBe(0);
  });

  it("9e. shows a viewer the reports, settings, links and partners of the apps granted, and no control that would change them", async () => {
    const viewer = { email: "viewer@example.com", password: "the viewer's password" };
    const { appId: demoAppId } = demoApp();
    await addUser(
      { users: rt.stores.users, credentials: createPasswordCredentials(rt.stores.users) },
      {
        ...viewer,
        viewer: true,
        appIds: [APP_ID, IOS_APP_ID, demoAppId, cohortWorld().appId],
      },
    );
    const context = await browser.newContext({ viewport: DESKTOP, reducedMotion: "reduce" });
    try {
      const theirs = await context.newPage();
      const changes: string[] = [];
      theirs.on("request", (request) => {
        if (request.method() !== "GET" && !request.url().endsWith("/v1/session")) {
          changes.push(`${request.method()} ${request.url()}`);
        }
      });
      await theirs.goto(`${rt.url}/`);
      await heading(theirs, "Sign in").waitFor();
      await theirs.getByLabel("Email").fill(viewer.email);
      await theirs.getByLabel("Password").fill(viewer.password);
      await theirs.getByRole("button", { name: "Sign in" }).click();
      await heading(theirs, "Apps").waitFor();
      expect((await apiGet(context, "/v1/session")).body).toMatchObject({
        user: { email: viewer.email, viewer: true },
      });
      // The postbacks of no app are the service's admins' to see: the API refuses the viewer.
      expect(
        (await apiGet(context, `/v1/skadnetwork/unknown?from=${today()}&to=${today()}`)).status,
      ).toBe(401);

      /** No button or form on the page that makes, changes, sends or deletes anything. */
      const CHANGES =
        /^(Create|Save|Add|Edit|Delete|Confirm|Revoke|Disable|Enable|Remove|Change|Send|Name an|Upload)/;
      const noChanges = async (what: string) => {
        await theirs.getByTestId("view-only").waitFor();
        const names = await theirs.getByRole("main").getByRole("button").allInnerTexts();
        const labels = await Promise.all(
          (await theirs.getByRole("main").getByRole("button").all()).map(
            async (button) => (await button.getAttribute("aria-label")) ?? "",
          ),
        );
        const offered = [...names, ...labels].filter((name) => CHANGES.test(name.trim()));
        expect(offered, `${what}: controls that change something`).toEqual([]);
        // Whatever input shows a value shows it only.
        const editable = theirs
          .getByRole("main")
          .locator(
            "form input:enabled:not([readonly]), form textarea:enabled, form select:enabled",
          );
        const inputs = await editable.evaluateAll((elements) =>
          elements.map((input) => (input as unknown as { name: string }).name),
        );
        expect(
          inputs.filter(
            (name) =>
              ![
                "from",
                "to",
                "include_development",
                "format",
                "limit",
                "start",
                // The Cohorts page's filters and grouping: what it shows, nothing stored.
                "media_source",
                "campaign",
                "country",
                "platform",
                "group_by",
              ].includes(name),
          ),
          `${what}: inputs that change something`,
        ).toEqual([]);
      };

      expect(await theirs.getByTestId("view-only").innerText()).toMatch(
        /^View only\. You can see the reports, settings, links and exports of your apps, but not change them\.$/,
      );
      expect(await theirs.getByRole("heading", { name: "Create an app" }).count()).toBe(0);
      await theirs
        .getByRole("table", { name: "Apps" })
        .locator(`tr[data-app-id="${APP_ID}"]`)
        .waitFor();
      await noChanges("Apps");

      // The reports show, whole.
      await open(theirs, `/apps/${demoAppId}/overview`);
      await heading(theirs, "Overview").waitFor();
      await theirs.getByLabel("From").fill(range.from);
      await theirs.getByLabel("To", { exact: true }).fill(range.to);
      await expect
        .poll(
          async () => Number(await theirs.getByTestId("total-installs").getAttribute("data-value")),
          WITHIN,
        )
        .toBe(demoApp().outcome.installs);
      await theirs.getByRole("table", { name: "Campaigns" }).waitFor();
      expect(await theirs.locator("figure.chart canvas").count()).toBe(6);
      await noChanges("Overview");
      await screenshot(theirs, "viewer-overview");

      // The cohorts, whole: figures, both tables and their files, the curve.
      const { appId: cohortAppId, days } = cohortWorld();
      await open(theirs, `/apps/${cohortAppId}/cohorts?from=${days.first}&to=${days.today}`);
      await heading(theirs, "Cohorts").waitFor();
      await expect.poll(() => theirs.getByTestId("cohort-installs").innerText(), WITHIN).toBe("10");
      expect(await theirs.getByTestId("cohort-retention-d1").innerText()).toBe("40.0%");
      expect(await theirs.getByTestId("cohort-cost").innerText()).toBe("$30.00");
      await theirs.getByTestId("cohort-groups").waitFor();
      await theirs.getByTestId("cohort-table").waitFor();
      expect(await theirs.getByRole("button", { name: /^Download CSV/ }).count()).toBe(2);
      // The daily active users and the retention curve.
      expect(await theirs.locator("figure.chart canvas").count()).toBe(2);
      await theirs.getByLabel("Group by", { exact: true }).selectOption("country");
      await theirs.getByRole("heading", { name: "By media source and country" }).waitFor(WITHIN);
      await noChanges("Cohorts");
      await screenshot(theirs, "viewer-cohorts");

      // The cost rows and their file, and no upload.
      await open(theirs, `/apps/${demoAppId}/cost?from=${range.from}&to=${range.to}`);
      await heading(theirs, "Cost").waitFor();
      await theirs.getByTestId("cost-rows").waitFor(WITHIN);
      expect(
        await theirs.getByRole("button", { name: "Download CSV of the cost rows" }).count(),
      ).toBe(1);
      expect(await theirs.getByRole("heading", { name: "Upload cost rows" }).count()).toBe(0);
      expect(await theirs.locator('input[type="file"]').count()).toBe(0);
      expect(await theirs.getByRole("button", { name: /^Upload/ }).count()).toBe(0);
      await noChanges("Cost");
      await screenshot(theirs, "viewer-cost");

      await open(theirs, `/apps/${APP_ID}/keys`);
      await heading(theirs, "Keys").waitFor();
      await theirs.getByRole("table", { name: "Keys" }).waitFor();
      expect(await theirs.getByRole("heading", { name: "New key" }).count()).toBe(0);
      await noChanges("Keys");

      await open(theirs, `/apps/${APP_ID}/links`);
      await heading(theirs, "Links").waitFor();
      const link = theirs.locator(`tr[data-deeplink-id="${madeLink}"]`);
      await link.waitFor();
      expect(await theirs.getByRole("heading", { name: "Create a link" }).count()).toBe(0);
      await noChanges("Links");
      // The QR code is the viewer's to see.
      await link.getByRole("button", { name: `QR code of link ${madeLink}` }).click();
      await theirs.locator(`[data-qr-for="${madeLink}"] img`).waitFor(WITHIN);
      await screenshot(theirs, "viewer-links");

      await open(theirs, `/apps/${APP_ID}/settings`);
      await heading(theirs, "Settings").waitFor();
      const clickWindow = theirs.getByLabel("Click window");
      await clickWindow.waitFor();
      expect(await clickWindow.inputValue()).toBe("14");
      expect(await clickWindow.isDisabled()).toBe(true);
      await noChanges("Settings");
      await screenshot(theirs, "viewer-settings");

      await open(theirs, `/apps/${APP_ID}/partners`);
      await heading(theirs, "Partners").waitFor();
      await theirs
        .getByRole("table", { name: "Partner configurations" })
        .locator('tr[data-config-id="examplenet"]')
        .waitFor(WITHIN);
      await theirs.getByRole("table", { name: "Webhooks" }).waitFor();
      // The webhook's URL with its token masked, to a viewer as to anyone.
      expect(
        await theirs
          .getByRole("table", { name: "Webhooks" })
          .locator('tr[data-webhook-id="backend"] td')
          .nth(1)
          .innerText(),
      ).toBe(`${mock.url}/hook?access_token=***`);
      expect(
        JSON.stringify((await apiGet(context, `/v1/postbacks?app_id=${APP_ID}`)).body),
      ).not.toContain(WEBHOOK_TOKEN);
      expect(await theirs.getByLabel("Share device data without consent").isDisabled()).toBe(true);
      await noChanges("Partners");

      await open(theirs, `/apps/${IOS_APP_ID}/skadnetwork`);
      await heading(theirs, "SKAdNetwork").waitFor();
      const rule = theirs.getByRole("group", { name: "Window 1, Rule 1", exact: true });
      await rule.waitFor(WITHIN);
      expect(await rule.getByLabel("Fine value (1–63)").inputValue()).toBe("63");
      expect(await rule.getByLabel("Fine value (1–63)").isDisabled()).toBe(true);
      await theirs
        .getByRole("table", { name: "Ad network names" })
        .locator('tr[data-network-id="com.example"]')
        .waitFor();
      expect(await theirs.getByRole("form", { name: "Name an ad network" }).count()).toBe(0);
      await noChanges("SKAdNetwork");
      await screenshot(theirs, "viewer-skadnetwork");

      await open(theirs, `/apps/${demoAppId}/export`);
      await heading(theirs, "Export").waitFor();
      await theirs.getByRole("button", { name: "Download" }).waitFor();

      // The pages asked the service to change nothing.
      expect(changes).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("9f. shows the next person on a tab nothing of the one who signed out; says a session that ended at the sign-in, and takes back there its own person only", async () => {
    const { email, password } = ownerAccount();
    const { appId: demoAppId } = demoApp();
    const { appId: cohortAppId, days } = cohortWorld();
    // A viewer of the cohorts' app alone, and the second person (test 9), who has no app.
    const viewer = {
      email: "cohorts-viewer@example.com",
      password: "the cohorts viewer's password",
    };
    await addUser(
      { users: rt.stores.users, credentials: createPasswordCredentials(rt.stores.users) },
      { ...viewer, viewer: true, appIds: [cohortAppId] },
    );
    const context = await browser.newContext({ viewport: DESKTOP, reducedMotion: "reduce" });
    try {
      const tab = await context.newPage();
      const signIn = async (who: { email: string; password: string }) => {
        await heading(tab, "Sign in").waitFor(WITHIN);
        await tab.getByLabel("Email").fill(who.email);
        await tab.getByLabel("Password").fill(who.password);
        await tab.getByRole("button", { name: "Sign in" }).click();
      };
      const ended = tab.getByTestId("session-ended");
      // The tab's requests not answered yet: the page's own calls, the app shell's among them.
      let inFlight = 0;
      tab.on("request", () => {
        inFlight += 1;
      });
      tab.on("requestfinished", () => {
        inFlight -= 1;
      });
      tab.on("requestfailed", () => {
        inFlight -= 1;
      });
      /**
       * Opens the viewer's cohorts, ends the session once the page has made its calls (its
       * figures and, after them, its filters' choices; the app's details) and had them
       * answered, and changes the grouping: the call that makes is the one to meet the ended
       * session, which sends the page to sign in.
       */
      const regroupAfterSessionEnded = async (page: string, grouping: string) => {
        await open(tab, page);
        await expect.poll(() => tab.getByTestId("cohort-installs").innerText(), WITHIN).toBe("10");
        await expect
          .poll(() => tab.getByLabel("Country", { exact: true }).locator("option").count(), WITHIN)
          .toBeGreaterThan(1);
        await expect.poll(() => inFlight, WITHIN).toBe(0);
        await context.clearCookies();
        await tab.getByLabel("Group by", { exact: true }).selectOption(grouping, WITHIN);
        await heading(tab, "Sign in").waitFor(WITHIN);
      };
      const hash = () => new URL(tab.url()).hash;

      // The owner (a code too: an admin) opens the demo app's overview, and signs out.
      await tab.goto(`${rt.url}/`);
      await signIn({ email, password });
      await tab.getByLabel("Code").fill(totpCode(totpKey, Date.now()));
      await tab.getByRole("button", { name: "Sign in" }).click();
      await heading(tab, "Apps").waitFor(WITHIN);
      const ownersPage = `/apps/${demoAppId}/overview?from=${range.from}&to=${range.to}`;
      await open(tab, ownersPage);
      await expect
        .poll(
          async () => Number(await tab.getByTestId("total-installs").getAttribute("data-value")),
          WITHIN,
        )
        .toBe(demoApp().outcome.installs);
      await tab.getByRole("button", { name: "Sign out" }).click();
      await heading(tab, "Sign in").waitFor(WITHIN);
      expect(await ended.innerText()).toBe("");

      // The viewer, on the same tab: their own start page, no app of the owner's in the picker.
      await signIn(viewer);
      await heading(tab, "Apps").waitFor(WITHIN);
      expect(hash()).toBe("#/apps");
      await tab
        .getByRole("table", { name: "Apps" })
        .locator(`tr[data-app-id="${cohortAppId}"]`)
        .waitFor();
      expect(await tab.getByRole("table", { name: "Apps" }).locator("tbody tr").count()).toBe(1);
      expect(await tab.getByLabel("Current app").count()).toBe(0);
      expect(await tab.getByTestId("total-installs").count()).toBe(0);
      // The owner's overview by its address: asked of the service, which refuses it, never
      // answered from what the tab kept of the owner's.
      const [report] = await Promise.all([
        tab.waitForResponse((response) => response.url().includes("/v1/reports/overview")),
        open(tab, ownersPage),
      ]);
      expect(report.status()).toBe(401);
      await tab.getByTestId("app-refused").waitFor(WITHIN);
      expect(await tab.getByTestId("total-installs").count()).toBe(0);

      // The viewer's session ends (its cookie gone) on a page of theirs, its grouping changed:
      // the next call sends them to sign in, which says why, read out at once.
      const theirPage = `/apps/${cohortAppId}/cohorts?from=${days.first}&to=${days.today}`;
      await regroupAfterSessionEnded(theirPage, "platform");
      await expect
        .poll(() => ended.innerText(), WITHIN)
        .toBe("Your session ended: sign in again. Changes not saved were lost.");
      expect(await ended.getAttribute("role")).toBe("alert");
      await screenshot(tab, "sign-in-session-ended");

      // Another person signs in there: their own start page, not the viewer's.
      await signIn(SECOND);
      await heading(tab, "Apps").waitFor(WITHIN);
      expect(hash()).toBe("#/apps");
      await tab.getByText("No apps yet.").waitFor();
      expect(await tab.getByLabel("Current app").count()).toBe(0);
      await tab.getByRole("button", { name: "Sign out" }).click();

      // The viewer's session ends again: signed in again, they are back where they were.
      await signIn(viewer);
      await heading(tab, "Apps").waitFor(WITHIN);
      await tab
        .getByRole("table", { name: "Apps" })
        .locator(`tr[data-app-id="${cohortAppId}"]`)
        .waitFor();
      await regroupAfterSessionEnded(theirPage, "platform");
      await expect.poll(() => ended.innerText(), WITHIN).not.toBe("");
      await signIn(viewer);
      await heading(tab, "Cohorts").waitFor(WITHIN);
      const back = new URL(hash().slice(1), rt.url);
      expect(back.pathname).toBe(`/apps/${cohortAppId}/cohorts`);
      expect(Object.fromEntries(back.searchParams)).toMatchObject({
        from: days.first,
        to: days.today,
        group_by: "platform",
      });
      await expect.poll(() => tab.getByTestId("cohort-installs").innerText(), WITHIN).toBe("10");
    } finally {
      await context.close();
    }
  });

  it("9g. signs out, from a tab whose sign-in another tab has since replaced, the person the session now holds", async () => {
    const context = await browser.newContext({ viewport: DESKTOP, reducedMotion: "reduce" });
    try {
      const signInOn = async (tab: Page, who: { email: string; password: string }) => {
        await tab.goto(`${rt.url}/`);
        await heading(tab, "Sign in").waitFor(WITHIN);
        await tab.getByLabel("Email").fill(who.email);
        await tab.getByLabel("Password").fill(who.password);
        await tab.getByRole("button", { name: "Sign in" }).click();
        await heading(tab, "Apps").waitFor(WITHIN);
      };
      const first = await context.newPage();
      await signInOn(first, SECOND);
      // The other tab shares the cookie: it signs the person out and in again, a new session.
      const other = await context.newPage();
      await other.goto(`${rt.url}/`);
      await heading(other, "Apps").waitFor(WITHIN);
      await other.getByRole("button", { name: "Sign out" }).click();
      await signInOn(other, SECOND);
      // The first tab still holds the ended session's token: its sign-out ends the new one.
      await first.getByRole("button", { name: "Sign out" }).click();
      await heading(first, "Sign in").waitFor(WITHIN);
      const session = await first.request.get(`${rt.url}/v1/session`);
      expect(session.status()).toBe(401);
      await other.reload();
      await heading(other, "Sign in").waitFor(WITHIN);
    } finally {
      await context.close();
    }
  });

  it("10. fits every page in 390 px without sideways scrolling, the navigation in reach", async () => {
    const { appId } = demoApp();
    /** Each page, what shows it is ready, its navigation's links, and its screenshot. */
    const pages: {
      route: string;
      title: string;
      ready: (on: Page) => Locator;
      /**
       * Apps, People (the owner is an admin), then the app's pages: nine, and SKAdNetwork for
       * an app on iOS.
       */
      links: number;
      shot?: string;
    }[] = [
      {
        route: `/apps/${appId}/overview`,
        title: "Overview",
        ready: (on) => on.getByRole("table", { name: "Campaigns" }),
        links: 11,
        shot: "overview-390",
      },
      {
        route: "/people",
        title: "People",
        ready: (on) => on.getByRole("table", { name: "People" }),
        // The app pages of the app chosen last: the overview's, on Android.
        links: 11,
        shot: "people-390",
      },
      {
        route: `/apps/${cohortWorld().appId}/cohorts?from=${cohortWorld().days.first}&to=${cohortWorld().days.today}&view=revenue`,
        title: "Cohorts",
        ready: (on) => on.getByTestId("cohort-table"),
        links: 11,
        shot: "cohorts-390",
      },
      {
        route: `/apps/${appId}/cost?from=${range.from}&to=${range.to}`,
        title: "Cost",
        ready: (on) => on.getByTestId("cost-rows"),
        links: 11,
        shot: "cost-rows-390",
      },
      // After an Android app's page: the Apps page's navigation is that of the app last opened.
      {
        route: "/apps",
        title: "Apps",
        ready: (on) => on.getByRole("table", { name: "Apps" }),
        links: 11,
      },
      {
        route: `/apps/${APP_ID}/settings`,
        title: "Settings",
        ready: (on) => on.getByRole("button", { name: "Save settings" }),
        links: 11,
      },
      {
        route: `/apps/${APP_ID}/keys`,
        title: "Keys",
        ready: (on) => on.getByRole("table", { name: "Keys" }),
        links: 11,
      },
      {
        route: `/apps/${APP_ID}/links`,
        title: "Links",
        ready: (on) => on.getByRole("table", { name: "Links" }),
        links: 11,
      },
      {
        route: `/apps/${APP_ID}/partners`,
        title: "Partners",
        ready: (on) => on.getByRole("table", { name: "Delivery log" }),
        links: 11,
        shot: "partners-390",
      },
      {
        route: `/apps/${IOS_APP_ID}/skadnetwork`,
        title: "SKAdNetwork",
        // The saved schema's rules and the names' table.
        ready: (on) => on.getByRole("group", { name: "Window 2, Rule 1", exact: true }),
        links: 12,
        shot: "skadnetwork-390",
      },
      {
        route: `/apps/${IOS_APP_ID}/overview`,
        title: "Overview",
        ready: (on) => on.getByRole("table", { name: "Installs by media source and campaign" }),
        links: 12,
        shot: "overview-skadnetwork-390",
      },
      {
        route: `/apps/${appId}/live`,
        title: "Live",
        ready: (on) => on.getByRole("table", { name: "Latest events" }),
        links: 11,
      },
      {
        route: `/apps/${appId}/export`,
        title: "Export",
        ready: (on) => on.getByRole("button", { name: "Download" }),
        links: 11,
      },
    ];
    const fits = async (on: Page, what: string) => {
      const { scrollWidth, innerWidth } = await documentWidth(on);
      expect(innerWidth, what).toBe(PHONE.width);
      expect(scrollWidth, `${what}: the document's width`).toBeLessThanOrEqual(innerWidth);
    };

    const signedOut = await browser.newContext({ viewport: PHONE, reducedMotion: "reduce" });
    try {
      const phone = await signedOut.newPage();
      await phone.goto(`${rt.url}/`);
      await heading(phone, "Sign in").waitFor();
      await fits(phone, "Sign in");
    } finally {
      await signedOut.close();
    }

    const context = await browser.newContext({
      viewport: PHONE,
      reducedMotion: "reduce",
      storageState: await owner.storageState(),
    });
    try {
      const phone = await context.newPage();
      for (const { route, title, ready, links: count, shot } of pages) {
        await open(phone, route);
        await heading(phone, title).waitFor();
        await ready(phone).waitFor();
        await fits(phone, title);
        const nav = phone.getByRole("navigation", { name: "Main" }).getByRole("link");
        // The SKAdNetwork link follows the app's platform, known once the apps are read.
        await expect.poll(() => nav.count(), WITHIN).toBe(count);
        const links = await nav.all();
        for (const link of links) {
          const box = await link.boundingBox();
          expect(box, `${title}: a navigation link is laid out`).not.toBeNull();
          if (!box) continue;
          expect(box.x, `${title}: ${await link.innerText()}`).toBeGreaterThanOrEqual(0);
          expect(box.x + box.width, `${title}: ${await link.innerText()}`).toBeLessThanOrEqual(
            PHONE.width,
          );
          // Visible, steady and the element a tap at its centre reaches.
          await link.click({ trial: true });
        }
        if (shot) await screenshot(phone, shot);
      }
      // A table wider than the phone scrolls in its box, which the keyboard reaches and
      // scrolls, named by its table.
      await open(phone, `/apps/${APP_ID}/partners`);
      await heading(phone, "Partners").waitFor();
      const box = phone.getByRole("region", { name: "Delivery log table", exact: true });
      await box.getByRole("table", { name: "Delivery log" }).waitFor(WITHIN);
      expect(await box.getAttribute("tabindex")).toBe("0");
      expect(
        await box.evaluate(
          (element: { scrollWidth: number; clientWidth: number }) =>
            element.scrollWidth > element.clientWidth,
        ),
      ).toBe(true);
      await box.focus();
      await phone.keyboard.press("ArrowRight");
      await expect
        .poll(() => box.evaluate((element: { scrollLeft: number }) => element.scrollLeft), WITHIN)
        .toBeGreaterThan(0);

      // And the navigation works there: Apps from the last page.
      await navLink(phone, "Apps").click();
      await heading(phone, "Apps").waitFor();
    } finally {
      await context.close();
    }
  });
});
