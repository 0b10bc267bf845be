/**
 * The dashboard in Chromium as the benchmarks load it: a page at 1280 px, signed in through the
 * sign-in form, on the Apps page.
 */
import type { Browser, Page } from "playwright-core";

export const signedInPage = async (
  browser: Browser,
  url: string,
  email: string,
  password: string,
): Promise<Page> => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${url}/#/sign-in`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("table", { name: "Apps" }).waitFor();
  return page;
};
