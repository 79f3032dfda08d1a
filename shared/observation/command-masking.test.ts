import { describe, expect, it } from "vitest";
import { MASKED_ARGUMENT, maskCommandArguments, maskCommandLine } from "./command-masking";

describe("maskCommandArguments", () => {
  it("keeps ordinary arguments readable", () => {
    expect(maskCommandArguments(["push", "origin", "main"])).toEqual(["push", "origin", "main"]);
    expect(maskCommandArguments(["--verbose", "report.pdf", "--out=build/report-final.pdf"])).toEqual([
      "--verbose",
      "report.pdf",
      "--out=build/report-final.pdf",
    ]);
  });

  it("keeps file paths whose names carry digits, but not a token that happens to hold a slash", () => {
    const paths = [
      "/home/ann/reports/q3-2024/summary_v2.pdf",
      "./build/release-2026-11/app2.tar.gz",
      "~/photos/2024/IMG20240101_0930.jpg",
      "data/2024/11/24/export01.csv",
      "migrations/007_orders.sql",
    ];
    expect(maskCommandArguments(["cp", ...paths])).toEqual(["cp", ...paths]);
    expect(maskCommandArguments(["aB3dE5fG7hJ9kL/mN2pQ4rS6tU8vW0xY"])).toEqual([MASKED_ARGUMENT]);
    expect(maskCommandArguments(["/tmp/aB3dE5fG7hJ9kLmN2pQ4"])).toEqual([MASKED_ARGUMENT]);
  });

  it("keeps a long file name with an extension in the current folder, but not a key with an extension", () => {
    expect(maskCommandArguments(["-czf", "release-2026-11.tar.gz", "release"], "tar")).toEqual(["-czf", "release-2026-11.tar.gz", "release"]);
    expect(maskCommandArguments(["quarterly_report_2024_final.pdf", "IMG20240101_0930_holiday.jpg"])).toEqual([
      "quarterly_report_2024_final.pdf",
      "IMG20240101_0930_holiday.jpg",
    ]);
    expect(maskCommandArguments(["4f9a8b7c6d5e4f3a2b1c0d9e.key", "aB3dE5fG7hJ9kLmN2pQ4.txt"])).toEqual([MASKED_ARGUMENT, MASKED_ARGUMENT]);
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

describe("masking the secrets real terminals carry", () => {
  const canary = "Zq6-pw-canary";

  it("masks the password of user:password after curl's -u and --user, glued or not, and keeps the user", () => {
    expect(maskCommandArguments(["-s", "-u", `deploy:${canary}`, "http://127.0.0.1:8080/health"], "curl")).toEqual([
      "-s",
      "-u",
      `deploy:${MASKED_ARGUMENT}`,
      "http://127.0.0.1:8080/health",
    ]);
    expect(maskCommandArguments(["--user", `deploy:${canary}`], "curl")).toEqual(["--user", `deploy:${MASKED_ARGUMENT}`]);
    expect(maskCommandArguments([`-udeploy:${canary}`], "curl")).toEqual([`-udeploy:${MASKED_ARGUMENT}`]);
    expect(maskCommandArguments([`--user=deploy:${canary}`], "wget")).toEqual([`--user=deploy:${MASKED_ARGUMENT}`]);
    // No colon, no password: `git push -u origin main` stays as typed.
    expect(maskCommandArguments(["push", "-u", "origin", "main"], "git")).toEqual(["push", "-u", "origin", "main"]);
  });

  it("masks a password glued to mysql's -p, and credential headers", () => {
    expect(maskCommandArguments(["-uroot", `-p${canary}`, "shop"], "mysql")).toEqual(["-uroot", `-p${MASKED_ARGUMENT}`, "shop"]);
    expect(maskCommandArguments([`-p${canary}`, "shop"], "/usr/bin/mysqldump")).toEqual([`-p${MASKED_ARGUMENT}`, "shop"]);
    expect(maskCommandArguments(["-H", `Authorization: Bearer ${canary}`, "-H", "Accept: application/json"], "curl")).toEqual([
      "-H",
      `Authorization: ${MASKED_ARGUMENT}`,
      "-H",
      "Accept: application/json",
    ]);
    expect(maskCommandArguments(["--header", `X-Api-Key: ${canary}`], "curl")).toEqual(["--header", `X-Api-Key: ${MASKED_ARGUMENT}`]);
  });

  it("judges each command of a line by its own program (`cd x && mysql -p…`, pipes)", () => {
    expect(maskCommandArguments(["shop", "&&", "mysql", `-p${canary}`, "shop"], "cd")).toEqual(["shop", "&&", "mysql", `-p${MASKED_ARGUMENT}`, "shop"]);
    expect(maskCommandArguments(["dump.sql", "|", "mysql", "-uroot", `-p${canary}`], "cat")).toEqual([
      "dump.sql",
      "|",
      "mysql",
      "-uroot",
      `-p${MASKED_ARGUMENT}`,
    ]);
  });

  it("keeps the path after a -p that is not a password (mkdir, ssh, git), and masks an unknown program's -p value", () => {
    expect(maskCommandArguments(["-p", "build/out"], "mkdir")).toEqual(["-p", "build/out"]);
    expect(maskCommandArguments(["-p", "2222", "deploy@staging"], "ssh")).toEqual(["-p", "2222", "deploy@staging"]);
    expect(maskCommandArguments(["-p", canary], "vault-login")).toEqual(["-p", MASKED_ARGUMENT]);
    expect(maskCommandArguments(["-p", canary])).toEqual(["-p", MASKED_ARGUMENT]);
  });

  it("judges the program a wrapper runs (sudo, docker exec, kubectl exec, ssh), and program-specific secret flags", () => {
    expect(maskCommandArguments(["-u", "root", "mysql", `-p${canary}`], "sudo")).toEqual(["-u", "root", "mysql", `-p${MASKED_ARGUMENT}`]);
    expect(maskCommandArguments(["exec", "-it", "db", "mysql", "-uroot", `-p${canary}`], "docker")).toEqual([
      "exec",
      "-it",
      "db",
      "mysql",
      "-uroot",
      `-p${MASKED_ARGUMENT}`,
    ]);
    expect(maskCommandArguments(["-p", "2222", "db.internal", "mysql", `-p${canary}`], "ssh")).toEqual([
      "-p",
      "2222",
      "db.internal",
      "mysql",
      `-p${MASKED_ARGUMENT}`,
    ]);
    expect(maskCommandArguments(["mkdir", "-p", "/opt/shop/releases"], "sudo")).toEqual(["mkdir", "-p", "/opt/shop/releases"]);
    expect(maskCommandArguments(["-h", "cache.internal", "-a", canary, "ping"], "redis-cli")).toEqual(["-h", "cache.internal", "-a", MASKED_ARGUMENT, "ping"]);
    expect(maskCommandArguments(["rsa", "-in", "key.pem", "-passin", `pass:${canary}`], "openssl")).toEqual([
      "rsa",
      "-in",
      "key.pem",
      "-passin",
      MASKED_ARGUMENT,
    ]);
    // `-a` is a password only for redis: `ls -a`, `git commit -a` stay as typed.
    expect(maskCommandArguments(["commit", "-a", "-m", "release"], "git")).toEqual(["commit", "-a", "-m", "release"]);
  });

  it("splits a line into assignments, program and arguments, a secret variable masked", () => {
    expect(maskCommandLine([`PGPASSWORD=${canary}`, "LANG=C", "/usr/bin/psql", "-h", "db.internal"])).toEqual({
      program: "psql",
      args: ["-h", "db.internal"],
      assignments: [`PGPASSWORD=${MASKED_ARGUMENT}`, "LANG=C"],
    });
    expect(maskCommandLine([`API_TOKEN=${canary}`])).toEqual({ program: undefined, args: [], assignments: [`API_TOKEN=${MASKED_ARGUMENT}`] });
  });
});
