import { describe, expect, it } from "vitest";
import { MASKED_ARGUMENT, maskCommandArguments } from "./command-masking";

describe("maskCommandArguments", () => {
  it("keeps ordinary arguments readable", () => {
    expect(maskCommandArguments(["push", "origin", "main"])).toEqual(["push", "origin", "main"]);
    expect(maskCommandArguments(["--verbose", "report.pdf", "--out=build/report-final.pdf"])).toEqual(["--verbose", "report.pdf", "--out=build/report-final.pdf"]);
  });

  it("keeps file paths whose names carry digits, but not a token that happens to hold a slash", () => {
    const paths = ["/home/ann/reports/q3-2024/summary_v2.pdf", "./build/release-2026-11/app2.tar.gz", "~/photos/2024/IMG20240101_0930.jpg", "data/2024/11/24/export01.csv", "migrations/007_orders.sql"];
    expect(maskCommandArguments(["cp", ...paths])).toEqual(["cp", ...paths]);
    expect(maskCommandArguments(["aB3dE5fG7hJ9kL/mN2pQ4rS6tU8vW0xY"])).toEqual([MASKED_ARGUMENT]);
    expect(maskCommandArguments(["/tmp/aB3dE5fG7hJ9kLmN2pQ4"])).toEqual([MASKED_ARGUMENT]);
  });

  it("masks the value after a secret flag", () => {
    expect(maskCommandArguments(["login", "--password", "hunter2", "-u", "ann"])).toEqual(["login", "--password", MASKED_ARGUMENT, "-u", "ann"]);
    expect(maskCommandArguments(["-p", "s3cr3t"])).toEqual(["-p", MASKED_ARGUMENT]);
  });

  it("masks secret-named key=value pairs and token-looking values", () => {
    expect(maskCommandArguments(["--api-key=abc", "TOKEN=xyz", "name=Ann"])).toEqual([`--api-key=${MASKED_ARGUMENT}`, `TOKEN=${MASKED_ARGUMENT}`, "name=Ann"]);
    expect(maskCommandArguments(["ghp_9fK2LmQ8xZ7vB3nR1tY6wE4uI0oP5aS2dF"])).toEqual([MASKED_ARGUMENT]);
    expect(maskCommandArguments(["4111 1111 1111 1111"])).toEqual([MASKED_ARGUMENT]);
  });

  it("masks URL query values and credentials", () => {
    expect(maskCommandArguments(["https://user:pw@api.example.com/v1?key=abc&q=x"])).toEqual(["https://api.example.com/v1?key=*&q=*"]);
  });
});
