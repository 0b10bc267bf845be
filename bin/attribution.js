#!/usr/bin/env node
// The CLI is TypeScript run through tsx, so a clone needs no build step.
import { register } from "tsx/esm/api";

// The AWS SDK warns that releases from 2027 will need Node 22; the lockfile pins this one,
// and on the embedded runtime it only talks to the local DynamoDB-compatible store.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

register();
await import("../src/cli/main.ts");
