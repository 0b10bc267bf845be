/** The request bodies a demo device and a demo ad network send, as the API documents them. */
import type { InstallProfile, NetworkTouch } from "./install.ts";

const iso = (time: number): string => new Date(time).toISOString();

/**
 * `POST /v1/installs` as the SDK sends it on the first open. A live install opens now, after a
 * tap whose click id the Play install referrer hands back.
 */
export const installBody = (
  profile: InstallProfile,
  live?: { readonly firstOpen: number; readonly referrer: string | null },
) => {
  const firstOpen = live?.firstOpen ?? profile.firstOpen;
  const seconds = Math.floor(firstOpen / 1000);
  return {
    service_id: profile.serviceId,
    os: profile.device.os,
    os_version: profile.device.osVersion,
    device_model: profile.device.model,
    app_version: "3.2.1",
    sdk_platform: profile.device.os === "ios" ? "ios" : "kotlin",
    sdk_version: "1.11.0",
    first_open_time: iso(firstOpen),
    idfv: profile.idfv,
    maid: profile.maid,
    att_status: profile.attStatus,
    install_referrer: live?.referrer
      ? {
          referrer: live.referrer,
          click_timestamp: seconds - 60,
          install_begin_timestamp: seconds - 30,
        }
      : null,
  };
};

/** One touch of `POST /v1/touches`; a click goes through the app's link for its ad. */
export const touchBody = (touch: NetworkTouch, deeplinkId: string | null) => ({
  touch_type: touch.touchType,
  touch_time: iso(touch.time),
  ...touch.touch,
  ip: touch.ip,
  user_agent: touch.userAgent,
  maid: touch.maid,
  deeplink_id: deeplinkId,
});
