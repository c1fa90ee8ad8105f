/** Whether a host is this machine: the desk's endpoint policy and the report pages it shows (README "Landing"). Pure. */

/** 127.0.0.0/8, ::1 (also IPv4-mapped ::ffff:127.x.y.z) and `localhost`. Takes a WHATWG-normalised host. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (h === 'localhost') return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (v4) return v4.slice(1).every((p) => Number(p) <= 255) && Number(v4[1]) === 127;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  // The URL parser writes an IPv4-mapped address in hex: [::ffff:127.0.0.1] → [::ffff:7f00:1].
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(h);
  if (mapped) return parseInt(mapped[1] ?? '0', 16) >> 8 === 127;
  const mappedDotted = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(h);
  if (mappedDotted) return isLoopbackHost(mappedDotted[1] ?? '');
  return false;
}

/** An http(s) URL on this machine (the pages the desk may show from a job's output). */
export function isLoopbackUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return (u.protocol === 'http:' || u.protocol === 'https:') && isLoopbackHost(u.hostname);
}
