import { describe, expect, it } from "vitest";
import { readStreamSettings, StreamSettingsError } from "./stream-settings";

describe("stream settings", () => {
  it("defaults to 32 streams a person, 1000 an instance and a 256 KiB buffer", () => {
    expect(readStreamSettings({})).toEqual({ perIdentity: 32, perInstance: 1000, bufferBytes: 256 * 1024 });
  });

  it("reads each from its variable", () => {
    expect(
      readStreamSettings({
        PLAYGROUND_STREAMS_PER_IDENTITY: "4",
        PLAYGROUND_STREAMS_PER_INSTANCE: " 50 ",
        PLAYGROUND_STREAM_BUFFER_BYTES: "1048576",
      }),
    ).toEqual({ perIdentity: 4, perInstance: 50, bufferBytes: 1048576 });
  });

  it.each([
    ["PLAYGROUND_STREAMS_PER_IDENTITY", "0"],
    ["PLAYGROUND_STREAMS_PER_INSTANCE", "lots"],
    ["PLAYGROUND_STREAM_BUFFER_BYTES", "1024"],
  ])("refuses %s=%s, naming the variable", (name, value) => {
    expect(() => readStreamSettings({ [name]: value })).toThrow(StreamSettingsError);
    expect(() => readStreamSettings({ [name]: value })).toThrow(name);
  });
});
