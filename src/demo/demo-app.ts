import type { Platform } from "../ports/apps.ts";

/** An app the demo generates traffic for. */
export interface DemoApp {
  readonly appId: string;
  readonly appName: string;
  readonly platform: Platform;
}
