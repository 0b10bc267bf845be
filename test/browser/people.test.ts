/**
 * The People page in a real browser (the machine's Chromium), against the embedded runtime that
 * serves it: the owner adds a viewer with one app through its form, the password shown once
 * with its warning and gone once dismissed; that person signs in in a second browser context,
 * sees only that app and no People link (and the page, opened by its address, offers nothing);
 * the owner grants and revokes another app, resets the password (the person's open session
 * ends, the old password signs in no more, the new one does) and removes them (no sign-in
 * then). The tests run in order and build on each other.
 *
 * Each page is saved as a PNG in test-results/browser/ for a person to look at.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardSession, signIn } from "../support/dashboard-session.ts";
import { startTestRuntime, type TestRuntime } from "../support/runtime.ts";
import { DESKTOP, launchChromium, screenshot } from "./support/browser.ts";

const SEEN = { id: "com.example.people.seen", name: "Seen App" };
const UNSEEN = { id: "com.example.people.unseen", name: "Unseen App" };
const PERSON = "viewer@people.example";

/** How long a condition may take to hold: a render, an answer. */
const WITHIN = { timeout: 30_000, interval: 200 } as const;

describe("the People page in a browser", () => {
  let rt: TestRuntime;
  let browser: Browser;
  let ownerContext: BrowserContext;
  let owner: Page;
  let personContext: BrowserContext;
  let person: Page;
  /** The password the page showed when the person was added. */
  let firstPassword = "";

  const open = (on: Page, route: string) => on.goto(`${rt.url}/#${route}`);
  const heading = (on: Page, name: string) =>
    on.getByRole("heading", { level: 1, name, exact: true });
  const navLink = (on: Page, name: string) =>
    on.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });
  const signInThroughPage = async (on: Page, email: string, password: string) => {
    await on.goto(`${rt.url}/`);
    await heading(on, "Sign in").waitFor();
    await on.getByLabel("Email").fill(email);
    await on.getByLabel("Password").fill(password);
    await on.getByRole("button", { name: "Sign in" }).click();
  };
  const row = (email: string) => owner.locator(`tr[data-email="${email}"]`);
  const sessionStatus = async (context: BrowserContext) =>
    (await context.request.get(`${rt.url}/v1/session`)).status();

  beforeAll(async () => {
    rt = await startTestRuntime();
    if (!rt.owner) throw new Error("The first start made no owner account");
    const api: DashboardSession = await signIn(rt.url, rt.owner.email, rt.owner.password);
    for (const app of [SEEN, UNSEEN]) {
      const made = await api.send("POST", "/v1/apps", {
        app_id: app.id,
        name: app.name,
        platform: "android",
      });
      expect(made.status).toBe(201);
    }
    browser = await launchChromium();
    ownerContext = await browser.newContext({ viewport: DESKTOP, reducedMotion: "reduce" });
    owner = await ownerContext.newPage();
    personContext = await browser.newContext({ viewport: DESKTOP, reducedMotion: "reduce" });
    person = await personContext.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await rt?.dispose();
  });

  it("1. the owner, an admin, finds the People page in the navigation and is listed there", async () => {
    const { email, password } = rt.owner ?? { email: "", password: "" };
    await signInThroughPage(owner, email, password);
    await heading(owner, "Apps").waitFor();
    await navLink(owner, "People").click();
    await heading(owner, "People").waitFor();
    expect(new URL(owner.url()).hash).toBe("#/people");
    await row(email).waitFor();
    expect(await row(email).innerText()).toMatch(/owner@localhost\s*\(you\)\s*Admin\s*Every app/);
    // No one removes themselves, nor resets their own password (which would end the session
    // its new password is shown in): the owner's row has neither button.
    expect(
      await row(email)
        .getByRole("button", { name: /^(Remove|Reset)/ })
        .count(),
    ).toBe(0);
  });

  it("2. adds a viewer with one app; the password is shown once, with its warning", async () => {
    await owner.getByLabel("Email").fill(PERSON);
    await owner.getByLabel("Role").selectOption("viewer");
    await owner.getByRole("checkbox", { name: `${SEEN.name} (${SEEN.id})` }).check();
    await owner.getByRole("button", { name: "Add person" }).click();

    const shown = owner.getByRole("heading", { level: 2, name: `Password of ${PERSON}` });
    await shown.waitFor();
    // The focus is on it, so a screen reader reads out where the password is.
    await expect
      .poll(() => owner.evaluate("document.activeElement?.id"), WITHIN)
      .toBe("shown-password-heading");
    const field = owner.getByRole("textbox", { name: "Password", exact: true });
    firstPassword = await field.inputValue();
    expect(firstPassword.length).toBeGreaterThanOrEqual(16);
    expect(await owner.locator("#shown-password-warning").innerText()).toMatch(
      /will not be shown again/,
    );
    expect(await field.getAttribute("aria-describedby")).toBe("shown-password-warning");
    await owner.getByRole("button", { name: "Copy the password" }).waitFor();
    await screenshot(owner, "people-added");

    await row(PERSON).waitFor();
    expect(await row(PERSON).innerText()).toMatch(
      new RegExp(`${PERSON}\\s*Viewer\\s*${SEEN.id.replaceAll(".", "\\.")} \\(${SEEN.name}\\)`),
    );
    expect(
      await row(PERSON)
        .getByRole("list", { name: `Apps of ${PERSON}` })
        .innerText(),
    ).not.toContain(UNSEEN.id);

    // Dismissed, it is gone, and nothing brings it back.
    await owner.getByRole("button", { name: "Done" }).click();
    await expect.poll(() => owner.content(), WITHIN).not.toContain(firstPassword);
    await owner.reload();
    await row(PERSON).waitFor();
    expect(await owner.content()).not.toContain(firstPassword);
  });

  it("3. the viewer signs in elsewhere: only their app, no People link, and the page offers nothing", async () => {
    await signInThroughPage(person, PERSON, firstPassword);
    await heading(person, "Apps").waitFor();
    const apps = person.getByRole("table", { name: "Apps" });
    await apps.waitFor();
    const ids = await apps.locator("tbody tr td.mono").allInnerTexts();
    expect(ids).toEqual([SEEN.id]);
    expect(await navLink(person, "Apps").count()).toBe(1);
    expect(await navLink(person, "People").count()).toBe(0);
    await open(person, "/people");
    await heading(person, "People").waitFor();
    await person.getByText("Only an admin manages the people who may sign in.").waitFor();
    expect(await person.getByRole("table", { name: "People" }).count()).toBe(0);
    expect((await personContext.request.get(`${rt.url}/v1/users`)).status()).toBe(401);
    await screenshot(person, "people-viewer");
  });

  it("4. the owner grants the viewer another app and takes it back", async () => {
    await row(PERSON).getByLabel(`App to grant to ${PERSON}`).selectOption(UNSEEN.id);
    await row(PERSON)
      .getByRole("button", { name: `Grant the chosen app to ${PERSON}` })
      .click();
    await expect
      .poll(() => owner.getByRole("status").allInnerTexts(), WITHIN)
      .toContain(`${PERSON} may now see ${UNSEEN.id}.`);
    const granted = () =>
      row(PERSON)
        .getByRole("list", { name: `Apps of ${PERSON}` })
        .innerText();
    await expect.poll(granted, WITHIN).toContain(UNSEEN.id);
    const seen = async () =>
      (
        (await (await personContext.request.get(`${rt.url}/v1/apps`)).json()) as {
          apps: { app_id: string }[];
        }
      ).apps.map((app) => app.app_id);
    expect((await seen()).sort()).toEqual([SEEN.id, UNSEEN.id].sort());

    await row(PERSON)
      .getByRole("button", { name: `Revoke ${UNSEEN.id} from ${PERSON}` })
      .click();
    await expect.poll(granted, WITHIN).not.toContain(UNSEEN.id);
    expect(await seen()).toEqual([SEEN.id]);
    // The Revoke button went with the app: the focus is on the person's choice of an app.
    await expect
      .poll(
        () =>
          owner.evaluate(
            "document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.id",
          ),
        WITHIN,
      )
      .toBe("grant-viewer_40_people_2e_example");
  });

  it("5. the owner resets the viewer's password after a confirmation: their session ends, the new password is shown once", async () => {
    expect(await sessionStatus(personContext)).toBe(200);
    await row(PERSON)
      .getByRole("button", { name: `Reset the password of ${PERSON}` })
      .click();
    const confirm = row(PERSON).getByRole("button", {
      name: `Confirm password reset of ${PERSON}`,
    });
    await confirm.waitFor();
    // Nothing happened yet: the confirmation alone resets.
    expect(await sessionStatus(personContext)).toBe(200);
    await confirm.click();

    await owner.getByRole("heading", { level: 2, name: `New password of ${PERSON}` }).waitFor();
    const next = await owner.getByRole("textbox", { name: "Password", exact: true }).inputValue();
    expect(next).not.toBe(firstPassword);
    expect(next.length).toBeGreaterThanOrEqual(16);
    await screenshot(owner, "people-reset");

    // The viewer's open session is over: their next page asks them to sign in.
    expect(await sessionStatus(personContext)).toBe(401);
    await person.reload();
    await heading(person, "Sign in").waitFor();
    await person.getByLabel("Email").fill(PERSON);
    await person.getByLabel("Password").fill(firstPassword);
    await person.getByRole("button", { name: "Sign in" }).click();
    await expect
      .poll(() => person.locator("#sign-in-error").textContent(), WITHIN)
      .toBe("Wrong email or password.");
    await person.getByLabel("Password").fill(next);
    await person.getByRole("button", { name: "Sign in" }).click();
    // Back where their session ended.
    await heading(person, "People").waitFor();
    expect(await sessionStatus(personContext)).toBe(200);
  });

  it("6. the owner removes the viewer after a confirmation: their session ends and they sign in no more", async () => {
    await owner.getByRole("button", { name: "Done" }).click();
    await row(PERSON)
      .getByRole("button", { name: `Remove ${PERSON}` })
      .click();
    await row(PERSON)
      .getByRole("button", { name: `Confirm removal of ${PERSON}` })
      .click();
    await expect
      .poll(() => owner.getByRole("status").allInnerTexts(), WITHIN)
      .toContain(`Removed ${PERSON}; their sessions have ended.`);
    await expect.poll(() => row(PERSON).count(), WITHIN).toBe(0);
    await screenshot(owner, "people-removed");

    expect(await sessionStatus(personContext)).toBe(401);
    const listed = (await (await ownerContext.request.get(`${rt.url}/v1/users`)).json()) as {
      users: { email: string }[];
    };
    expect(listed.users.map((user) => user.email)).toEqual([rt.owner?.email]);
  });
});
