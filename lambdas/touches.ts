/** `POST /v1/touches` on AWS: an ad network's clicks and impressions, each with its verdict. */
import { createTouchesHandler } from "../src/http/handlers/touches.ts";
import { logged } from "./logged.ts";
import { touchDeps } from "./touch-recording.ts";

export const handler = logged(createTouchesHandler(touchDeps));
