/** `npx cdk synth|deploy` runs this (cdk.json). The app itself is lib/app.ts. */
import { createApp } from "../lib/app.ts";

createApp().app.synth();
