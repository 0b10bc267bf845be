import { useEffect, useRef, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { type ExportRecord, errorMessage, getLatestEvents } from "../api.ts";
import { ErrorText, Page, TableScroll } from "../components/page.tsx";
import { formatTime, formatUsd, UNKNOWN } from "../format.ts";
import { eventCampaign, latestEventsHint, NO_LATEST_EVENTS } from "../latest-events.ts";
import { appPath } from "../session.tsx";
import { eventWord, platformWord, UNATTRIBUTED } from "../words.ts";

const POLL_MS = 3000;
const LIMIT = 50;
/** How much of an event id the table shows. */
const ID_SHOWN = 8;

const text = (value: unknown): string =>
  value === null || value === undefined || value === "" ? UNKNOWN : String(value);

/** A name that may wrap after its `_`, `-` and `.` (EG_AND_UA_Tier1 / _Purchase), not mid-word. */
const breakable = (name: string) =>
  name.split(/(?<=[_.-])/).map((part, i) => (i === 0 ? part : [<wbr key={i} />, part]));

/** The device's platform in words: `android` → Android. */
const platformOf = (event: ExportRecord): string => {
  return event.os ? platformWord(event.os) : UNKNOWN;
};

/**
 * An event's identity across polls: its id and its install's (an id is once per install: a
 * server's event sent again after its user moved to another install is that one's too), else
 * what it is made of.
 */
const identity = (event: ExportRecord): string =>
  event.event_id !== null && event.event_id !== undefined
    ? `${event.service_id ?? ""}|${event.event_id}`
    : `${event.event_time}|${event.event_name}|${event.media_source}`;

export function LivePage(props: { appId: string }) {
  const { appId } = props;
  const [events, setEvents] = useState<ExportRecord[] | null>(null);
  const [paused, setPaused] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fresh, setFresh] = useState<Set<string>>(new Set());
  const [announcement, setAnnouncement] = useState("");
  const [updatedAt, setUpdatedAt] = useState<Date | null>(null);
  const seen = useRef<Set<string> | null>(null);

  useEffect(() => {
    if (paused) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const latest = await getLatestEvents(appId, LIMIT);
        if (stopped) return;
        const ids = latest.map(identity);
        const previous = seen.current;
        const added = previous ? ids.filter((id) => !previous.has(id)) : [];
        seen.current = new Set([...(previous ?? []), ...ids]);
        setEvents(latest);
        setFresh(new Set(added));
        setUpdatedAt(new Date());
        setError(null);
        if (added.length > 0) {
          setAnnouncement(
            `${added.length} new ${added.length === 1 ? "event" : "events"} at ${formatTime(new Date().toISOString())}.`,
          );
        }
      } catch (caught) {
        if (stopped) return;
        setError(errorMessage(caught));
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [appId, paused]);

  return (
    <Page title="Live" subtitle={appId}>
      <div class="card live-bar">
        <button type="button" onClick={() => setPaused(!paused)}>
          {paused ? "Resume" : "Pause"}
        </button>
        <p class="hint">
          {paused ? "Paused." : latestEventsHint(LIMIT, POLL_MS / 1000)}
          {updatedAt ? ` Last updated ${formatTime(updatedAt.toISOString())}.` : ""}
        </p>
        <p class="live-count" aria-live="polite" aria-atomic="true" data-testid="new-events">
          {announcement}
        </p>
      </div>
      <ErrorText message={error} />
      {events === null ? (
        error ? null : (
          <p class="loading">Loading…</p>
        )
      ) : events.length === 0 ? (
        // The answer holds yesterday's and today's events only: the app may have older ones.
        <p>
          {NO_LATEST_EVENTS} Earlier ones are on the{" "}
          <Link href={appPath(appId, "export")}>Export page</Link>.
        </p>
      ) : (
        <TableScroll label="Latest events">
          <table aria-label="Latest events" class="card-table live-table">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Event</th>
                <th scope="col">Media source</th>
                <th scope="col">Campaign</th>
                <th scope="col" class="num">
                  {/* Its figures are in $: the word is for screen readers, the column stays narrow. */}
                  Revenue<span class="visually-hidden"> USD</span>
                </th>
                <th scope="col">Country</th>
                <th scope="col">Platform</th>
                <th scope="col">Event id</th>
              </tr>
            </thead>
            <tbody>
              {events.map((event) => {
                const id = identity(event);
                return (
                  <tr
                    key={id}
                    data-event-id={event.event_id ?? undefined}
                    class={fresh.has(id) ? "fresh" : undefined}
                  >
                    <td>{formatTime(event.event_time)}</td>
                    <td class="wrap" title={event.event_name ?? undefined}>
                      {event.event_name ? eventWord(event.event_name) : UNKNOWN}
                    </td>
                    <td>{event.media_source ? event.media_source : UNATTRIBUTED}</td>
                    <td class="wrap">{breakable(text(eventCampaign(event)))}</td>
                    <td class="num">
                      {typeof event.revenue_usd === "number"
                        ? formatUsd(event.revenue_usd)
                        : UNKNOWN}
                    </td>
                    <td>{text(event.country)}</td>
                    <td>{platformOf(event)}</td>
                    <EventIdCell id={event.event_id} />
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
    </Page>
  );
}

/** An event id cut to its first 8 characters; the whole id in its title and for screen readers. */
function EventIdCell(props: { id: string | null }) {
  const { id } = props;
  if (!id) return <td class="mono">{UNKNOWN}</td>;
  const short = id.length > ID_SHOWN ? `${id.slice(0, ID_SHOWN)}…` : id;
  return (
    <td class="mono" title={id} data-testid="event-id">
      <span aria-hidden="true">{short}</span>
      <span class="visually-hidden">{id}</span>
    </td>
  );
}
