import { isIPv6 } from "node:net";

/**
 * The `format`s a response contract commonly names, checked as their RFCs define them (date-time, date and
 * time of RFC 3339, email of RFC 5321 without quoted local parts or comments, uri of RFC 3986 (absolute), uuid
 * of RFC 4122, ipv4, ipv6 (no zone), hostname of RFC 1123, regex as ECMAScript). Other formats are annotations.
 */
export const FORMAT_CHECKS: Readonly<Record<string, (value: string) => boolean>> = Object.freeze({
  "date-time": (value) => {
    const split = /^(.+)[Tt](.+)$/.exec(value);
    return split !== null && isDate(split[1]!) && isTime(split[2]!);
  },
  date: (value) => isDate(value),
  time: (value) => isTime(value),
  email: (value) => {
    const at = value.lastIndexOf("@");
    if (at < 1) return false;
    const domain = value.slice(at + 1);
    const literal = /^\[(.+)\]$/.exec(domain);
    return LOCAL_PART.test(value.slice(0, at)) && (literal ? isIPv4(literal[1]!) || isIPv6Literal(literal[1]!) : isHostname(domain));
  },
  uri: (value) => URI.test(value) && !/%(?![0-9A-Fa-f]{2})/.test(value) && ![...value].some(isControl),
  uuid: (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
  ipv4: (value) => isIPv4(value),
  ipv6: (value) => !value.includes("%") && isIPv6(value),
  hostname: (value) => isHostname(value),
  regex: (value) => {
    try {
      new RegExp(value, "u");
      return true;
    } catch {
      return false;
    }
  },
});

/** A dot-atom local part (RFC 5322 atext, dots between atoms). */
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** An absolute URI: a scheme, then no whitespace, control or excluded characters. */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]*$/;

function isControl(character: string): boolean {
  const code = character.codePointAt(0)!;
  return code < 0x20 || code === 0x7f;
}

function isDate(value: string): boolean {
  const parts = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!parts) return false;
  const [year, month, day] = parts.slice(1).map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

/** RFC 3339 full-time: a time of day with an offset (Z or ±hh:mm); second 60 only as a leap second at 23:59 UTC. */
function isTime(value: string): boolean {
  const parts = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/.exec(value);
  if (!parts) return false;
  const [hour, minute, second] = [parts[1], parts[2], parts[3]].map(Number) as [number, number, number];
  const offsetHour = Number(parts[7] ?? 0);
  const offsetMinute = Number(parts[8] ?? 0);
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59) return false;
  if (second < 60) return true;
  const sign = parts[6] === "-" ? 1 : -1;
  const utc = (((hour * 60 + minute + sign * (offsetHour * 60 + offsetMinute)) % 1440) + 1440) % 1440;
  return utc === 23 * 60 + 59;
}

function isIPv4(value: string): boolean {
  const parts = value.split(".");
  return parts.length === 4 && parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255);
}

function isIPv6Literal(value: string): boolean {
  return /^IPv6:/i.test(value) && FORMAT_CHECKS["ipv6"]!(value.slice(5));
}

function isHostname(value: string): boolean {
  if (value.length === 0 || value.length > 253) return false;
  return value.split(".").every((label) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label));
}
