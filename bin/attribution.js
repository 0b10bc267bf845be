#!/usr/bin/env node
// The CLI is TypeScript. A command starts from the bundle `npm install` builds when it is as
// new as its sources (bin/cli-bundle.js), else through tsx, so a clone needs no build step and
// an edited source is never stale.
import { freshBundle } from "./cli-bundle.js";

// The AWS SDK warns that releases from 2027 will need Node 22; the lockfile pins this one,
// and on the embedded runtime it only talks to the local DynamoDB-compatible store.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const bundle = freshBundle();
if (bundle) {
  await import(bundle.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
