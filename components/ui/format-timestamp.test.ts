import { describe, expect, it } from "vitest";
import { formatTimestamp } from "./format-timestamp";

const AT = "2026-12-01T10:02:28.509Z";

describe("the one way a stored time is shown", () => {
  it("is the date and the second in the viewer's zone, with the zone named", () => {
    expect(formatTimestamp(AT, { timeZone: "UTC", locale: "en-US" }).text).toBe(
      "Dec 1, 2026, 10:02:28 AM UTC",
    );
    expect(formatTimestamp(AT, { timeZone: "Asia/Tokyo", locale: "en-US" }).text).toBe(
      "Dec 1, 2026, 7:02:28 PM GMT+9",
    );
    expect(formatTimestamp(AT, { timeZone: "Europe/Berlin", locale: "de-DE" }).text).toBe(
      "1. Dez. 2026, 11:02:28 MEZ",
    );
  });

  it("gives the exact instant for a hover: the milliseconds, and UTC beside the local time", () => {
    const { exact } = formatTimestamp(AT, { timeZone: "America/New_York", locale: "en-US" });
    expect(exact).toContain("Tuesday, December 1, 2026 at 5:02:28 AM EST");
    expect(exact).toContain("+509 ms");
    expect(exact).toContain(AT);
  });

  it("shows what it was given when it is no time at all", () => {
    expect(formatTimestamp("not a time")).toEqual({ text: "not a time", exact: "not a time" });
  });
});
