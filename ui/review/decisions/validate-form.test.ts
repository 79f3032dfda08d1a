import { render } from "svelte/server";
import { describe, expect, it } from "vitest";
import ValidateForm from "./ValidateForm.svelte";
import { flowActsInBrowser } from "../proposal/proposal-review.svelte";

const parameters = [{ name: "branch", label: "Branch", type: "text" }];
const props = { parameters, busy: false, onvalidate: () => {}, oncancel: () => {} };

describe("the Validate form", () => {
  it("asks test values for a flow in web pages, which it rehearses in a separate browser", () => {
    const { body } = render(ValidateForm, { props });
    expect(body).toContain("rehearses it in a separate browser");
    expect(body).toContain('name="test-branch"');
  });

  it("says that a routine on this computer is not rehearsed and no command is run, and asks no test values", () => {
    const { body } = render(ValidateForm, { props: { ...props, actsInBrowser: false } });
    expect(body).toContain("No command is run");
    expect(body).toContain("confirm by hand");
    expect(body).not.toContain("separate browser");
    expect(body).not.toContain('name="test-');
  });
});

describe("whether validation can rehearse a proposal in a browser", () => {
  it("is yes for a web flow and for a proposal whose interpretation names no surface (practice, examples); no only for a terminal routine", () => {
    expect(flowActsInBrowser(["native_openclaw_browser"])).toBe(true);
    expect(flowActsInBrowser([])).toBe(true);
    expect(flowActsInBrowser(undefined)).toBe(true);
    expect(flowActsInBrowser(["wrapper_script"])).toBe(false);
  });
});
