/** `POST /v1/touches` on AWS: an ad network's clicks and impressions, each with its verdict. */
import { createLinkStore } from "../src/adapters/dynamodb/links.ts";
import { createAppStore } from "../src/adapters/dynamodb/stores.ts";
import { createTouchStore } from "../src/adapters/dynamodb/touches.ts";
import { firehoseStreams } from "../src/aws/firehose-streams.ts";
import { geoipCountries } from "../src/aws/geoip-countries.ts";
import { lambda } from "../src/aws/lambda.ts";
import { touchesFunction } from "../src/http/handlers/touches.ts";

export const handler = await lambda(touchesFunction, {
  tables: { apps: createAppStore, links: createLinkStore, touches: createTouchStore },
  streams: firehoseStreams,
  countries: geoipCountries,
});
