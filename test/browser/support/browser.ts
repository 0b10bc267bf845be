/**
 * The browser the dashboard's tests drive: the machine's own Chromium through playwright-core
 * (never a downloaded one), and what the tests share about pages: screenshots into
 * test-results/browser/, and the width check of a phone-sized page.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.ATTRIBUTION_CHROMIUM ?? "/usr/bin/chromium";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Where the screenshots go: one PNG per page, at the project root (git-ignored). */
export const SCREENSHOTS = join(root, "test-results", "browser");

/** The desktop and the phone widths the pages are checked at. */
export const DESKTOP = { width: 1280, height: 800 } as const;
export const PHONE = { width: 390, height: 844 } as const;

/** `args`: Chromium's own switches, beside those playwright-core gives it. */
export const launchChromium = async (args: readonly string[] = []): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install it (apt-get install chromium).`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...args] });
};

/** The whole page as `test-results/browser/<name>.png`. */
export const screenshot = async (page: Page, name: string): Promise<void> => {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
};

/** How wide the document is against the window: wider means the page scrolls sideways. */
export const documentWidth = (page: Page): Promise<{ scrollWidth: number; innerWidth: number }> =>
  page.evaluate<{ scrollWidth: number; innerWidth: number }>(
    "({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })",
  );
