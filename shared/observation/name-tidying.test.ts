import { describe, expect, it } from "vitest";
import { tidyName } from "./name-tidying";

describe("names a person would say (issue #35)", () => {
  it("strips access-key hints", () => {
    expect(tidyName("[F]")).toBe("");
    expect(tidyName("Search [F]")).toBe("Search");
    expect(tidyName("Search Notes [alt-shift-f]")).toBe("Search Notes");
    expect(tidyName("Save page [Alt+Shift+S]")).toBe("Save page");
    expect(tidyName("Save (Ctrl+S)")).toBe("Save");
    expect(tidyName("Submit [Alt+Shift+Enter]")).toBe("Submit");
  });

  it("strips icon glyphs from icon fonts and symbol characters", () => {
    expect(tidyName("\uE0C9 Edit")).toBe("Edit");
    expect(tidyName("★ Favorites")).toBe("Favorites");
    expect(tidyName("✏️ Rename")).toBe("Rename");
    expect(tidyName("\uF101")).toBe("");
  });

  it("strips counters, but not a number that is part of the name", () => {
    expect(tidyName("Inbox (3)")).toBe("Inbox");
    expect(tidyName("Drafts [12]")).toBe("Drafts");
    expect(tidyName("Notifications 5")).toBe("Notifications");
    expect(tidyName("Page 2")).toBe("Page 2");
    expect(tidyName("Last 30 days")).toBe("Last 30 days");
    expect(tidyName("Step 3 of 4")).toBe("Step 3 of 4");
  });

  it("keeps one of doubled words", () => {
    expect(tidyName("Insert Insert")).toBe("Insert");
    expect(tidyName("New page New page")).toBe("New page");
    expect(tidyName("Log in")).toBe("Log in");
  });

  it("keeps a masked value's mark and ordinary names as they are", () => {
    expect(tidyName("Delete •••")).toBe("Delete •••");
    expect(tidyName("Create account (free)")).toBe("Create account (free)");
    expect(tidyName("Express (1–2 days)")).toBe("Express (1–2 days)");
  });
});
