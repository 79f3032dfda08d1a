/**
 * The leak corpus (issue 13): one small page per way real pages show a typed value back, each with
 * its own canary typed by real input. Written for this corpus, modeled on what real sites do (a
 * chat that clears its box, a search that puts the query in the hash, the title and a results
 * page, editors that render what is typed outside any form field, …); none is a copy of a real app.
 */
import type { Page } from "puppeteer-core";

export interface LeakCase {
  name: string;
  /** The canary typed on this page (unique per case; multi-line where the case needs lines). */
  canary: string;
  /** Where the demonstration starts. */
  path: string;
  /** What a person does there, with real input. */
  demonstrate(page: Page, step: () => Promise<void>): Promise<void>;
}

/** A page served by the corpus server: `/case/<name>` and the subpaths some cases navigate to. */
export type PageRoute = (path: string, query: URLSearchParams) => string | undefined;

const page = (title: string, body: string, script = ""): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>` +
  `<style>body{font:14px sans-serif;margin:24px}.toast{position:fixed;top:8px;right:8px;background:#333;color:#fff;padding:8px}` +
  `.editor{position:relative;width:320px;min-height:60px;border:1px solid #999;cursor:text}.editor textarea{position:absolute;width:1px;height:1px;opacity:0;padding:0;border:0}</style>` +
  `</head><body>${body}<script>${script}</script></body></html>`;

const escapeHtml = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Adds a named button that clears nothing: a later action, so a snapshot is taken with the echo on the page. */
const LATER = `<button id="later" type="button">Refresh view</button>`;

let counter = 0;
/** A canary nobody else types: two words and a random middle, so case, spacing and encoding variants are checkable. */
function canary(word: string): string {
  counter += 1;
  return `${word}${counter} ${crypto.randomUUID().slice(0, 8)}`;
}

/** Types into a field and leaves it with Tab, then waits: the edit is a step of its own before the button that acts on it. */
async function typeAndLeave(page: Page, selector: string, text: string, step: () => Promise<void>): Promise<void> {
  await typeInto(page, selector, text);
  await page.keyboard.press("Tab");
  await step();
}

/** Clicks into a field and types, pressing Enter between lines (a new line in a textarea or an editor). */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.click(selector);
  for (const [index, line] of text.split("\n").entries()) {
    if (index > 0) await page.keyboard.press("Enter");
    await page.keyboard.type(line);
  }
}

export function leakCases(): { cases: LeakCase[]; routes: Record<string, PageRoute> } {
  const cases: LeakCase[] = [];
  const routes: Record<string, PageRoute> = {};
  const add = (
    name: string,
    word: string,
    route: PageRoute,
    demonstrate: (page: Page, value: string, step: () => Promise<void>) => Promise<void>,
    value = canary(word),
  ) => {
    routes[name] = route;
    cases.push({ name, canary: value, path: `/case/${name}`, demonstrate: (page, step) => demonstrate(page, value, step) });
  };

  add(
    "list-echo",
    "Heron",
    () =>
      page(
        "Shopping list",
        `<h1>Shopping list</h1><label>New item <input id="item"></label><ul id="list"></ul>${LATER}`,
        `item.addEventListener("keydown",e=>{if(e.key!=="Enter")return;const li=document.createElement("li");const b=document.createElement("button");b.textContent=item.value;li.append(b);list.append(li);item.value="";});`,
      ),
    async (p, value, step) => {
      await typeInto(p, "#item", value);
      await p.keyboard.press("Enter");
      await step();
      await p.click("#list button");
      await step();
    },
  );

  add(
    "chat",
    "Puffin",
    () =>
      page(
        "Team chat",
        `<h1>Team chat</h1><div id="log" role="log"></div><label>Message <input id="msg"></label><div id="send" role="button" tabindex="-1">Send</div>`,
        `send.addEventListener("mousedown",e=>e.preventDefault());send.addEventListener("click",()=>{const d=document.createElement("div");const b=document.createElement("button");b.textContent=msg.value;d.append(b);log.append(d);msg.value="";});`,
      ),
    async (p, value, step) => {
      await typeInto(p, "#msg", value);
      await p.click("#send");
      await step();
      await p.click("#log button");
      await step();
    },
  );

  add(
    "toast",
    "Plover",
    () =>
      page(
        "Profile",
        `<h1>Profile</h1><label>Display name <input id="name"></label><button id="save" type="button">Save</button>${LATER}`,
        `save.addEventListener("click",()=>{const t=document.createElement("div");t.className="toast";t.textContent="Saved \\u201c"+name.value+"\\u201d";document.body.append(t);name.value="";setTimeout(()=>t.remove(),2000);});`,
      ),
    async (p, value, step) => {
      await typeInto(p, "#name", value);
      await p.click("#save");
      await p.click("#later");
      await step();
    },
  );

  add(
    "aria-live",
    "Curlew",
    () =>
      page(
        "Help",
        `<h1>Help</h1><label>Ask a question <input id="q"></label><button id="ask" type="button">Ask</button><p id="said" aria-live="polite"></p>${LATER}`,
        `ask.addEventListener("click",()=>{said.textContent="You asked about "+q.value;q.value="";});`,
      ),
    async (p, value, step) => {
      await typeAndLeave(p, "#q", value, step);
      await p.click("#ask");
      await step();
      await p.click("#later");
      await step();
    },
  );

  add(
    "get-search",
    "Avocet",
    (path, query) =>
      path.endsWith("/results")
        ? page(
            `${escapeHtml(query.get("q") ?? "")} – Results`,
            `<h1>Results for ${escapeHtml(query.get("q") ?? "")}</h1><p role="status">3 results for “${escapeHtml(query.get("q") ?? "")}”</p><a id="first" href="/case/get-search/item">Open the first result</a>`,
          )
        : path.endsWith("/item")
          ? page("Result", `<h1>A result</h1>`)
          : page(
              "Library search",
              `<h1>Library</h1><form action="/case/get-search/results" method="get"><label>Search <input name="q" id="q"></label><button>Search</button></form>`,
            ),
    async (p, value, step) => {
      await typeInto(p, "#q", value);
      await Promise.all([p.waitForNavigation({ waitUntil: "load" }), p.keyboard.press("Enter")]);
      await step();
      await Promise.all([p.waitForNavigation({ waitUntil: "load" }), p.click("#first")]);
      await step();
    },
  );

  add(
    "hash-search",
    "Dunlin",
    () =>
      page(
        "Notes",
        `<h1>Notes</h1><label>Search notes <input id="search"></label><button id="go" type="button">Search</button><p id="empty"></p><button id="clear" type="button">Clear search</button>`,
        `go.addEventListener("click",()=>{const q=search.value;search.value="";empty.textContent="No notes match "+q;location.hash="search/"+encodeURIComponent(q);document.title=q+" - Search";});` +
          `clear.addEventListener("click",()=>{empty.textContent="";});`,
      ),
    async (p, value, step) => {
      await typeAndLeave(p, "#search", value, step);
      await p.click("#go");
      await step();
      await p.click("#clear");
      await step();
    },
  );

  add(
    "pushstate-search",
    "Godwit",
    (path) =>
      page(
        "Notes app",
        `<h1 id="heading">All notes</h1><label>Find <input id="find"></label><button id="all" type="button">All notes</button>`,
        `find.addEventListener("keydown",e=>{if(e.key!=="Enter")return;const q=find.value;find.value="";history.pushState({},"","/case/pushstate-search/search/"+encodeURIComponent(q));heading.textContent="Notes about "+q;});` +
          `all.addEventListener("click",()=>{heading.textContent="All notes";});` +
          (path.includes("/search/") ? "" : ""),
      ),
    async (p, value, step) => {
      await typeInto(p, "#find", value);
      await p.keyboard.press("Enter");
      await step();
      await p.click("#all");
      await step();
    },
  );

  add(
    "title-from-field",
    "Stint",
    () =>
      page(
        "Untitled document",
        `<h1>Document</h1><label>Title <input id="title"></label><button id="done" type="button">Done</button>`,
        `title.addEventListener("input",()=>{document.title=title.value+" – Docs";});done.addEventListener("click",()=>{title.value="";});`,
      ),
    async (p, value, step) => {
      await typeInto(p, "#title", value);
      await p.click("#done");
      await step();
      await p.click("#done");
      await step();
    },
  );

  add(
    "multiline-echo",
    "Harbour",
    () =>
      page(
        "Checkout",
        `<h1>Delivery</h1><label>Address <textarea id="addr" rows="3"></textarea></label><button id="confirm" type="button">Ship to: (none)</button>`,
        `addr.addEventListener("input",()=>{confirm.textContent="Ship to: "+addr.value.replace(/\\n/g," ");});confirm.addEventListener("click",()=>{addr.value="";});`,
      ),
    async (p, value, step) => {
      await typeInto(p, "#addr", value);
      await p.click("#confirm");
      await step();
      await p.click("#confirm");
      await step();
    },
    `${canary("Harbour")} Lane\nFlat ${crypto.randomUUID().slice(0, 6)} Northgate`,
  );

  add(
    "odd-whitespace",
    "Maple",
    () =>
      page(
        "Tags",
        `<h1>Tags</h1><label>Tag <input id="tag"></label><div id="chips"></div>${LATER}`,
        `tag.addEventListener("keydown",e=>{if(e.key!=="Enter")return;const b=document.createElement("button");b.textContent=tag.value.split(" ").join("\\u00a0\\t\\n  ");chips.append(b);tag.value="";});`,
      ),
    async (p, value, step) => {
      await typeInto(p, "#tag", value);
      await p.keyboard.press("Enter");
      await step();
      await p.click("#chips button");
      await step();
    },
  );

  add(
    "case-echo",
    "Linnet",
    () =>
      page(
        "Teams",
        `<h1>Teams</h1><label>Team name <input id="team"></label><button id="create" type="button">Create team</button><h2 id="upper"></h2><div id="lower"></div>${LATER}`,
        `create.addEventListener("click",()=>{upper.textContent=team.value.toUpperCase();const b=document.createElement("button");b.textContent="open "+team.value.toLowerCase();lower.replaceChildren(b);team.value="";});`,
      ),
    async (p, value, step) => {
      await typeAndLeave(p, "#team", value, step);
      await p.click("#create");
      await step();
      await p.click("#lower button");
      await step();
    },
  );

  add(
    "url-encoded-echo",
    "Siskin",
    (path) =>
      path.includes("/tag/")
        ? page("Tagged", `<h1>Tagged ${escapeHtml(decodeURIComponent(path.split("/tag/")[1] ?? ""))}</h1>`)
        : page(
            "Share",
            `<h1>Share</h1><label>Topic <input id="topic"></label><button id="make" type="button">Make link</button><p id="code" role="status"></p><p id="links"></p>`,
            `make.addEventListener("click",()=>{const e=encodeURIComponent(topic.value);code.textContent="Share code: "+e;const a=document.createElement("a");a.href="/case/url-encoded-echo/tag/"+e;a.textContent="Open "+e;links.replaceChildren(a);topic.value="";});`,
          ),
    async (p, value, step) => {
      await typeAndLeave(p, "#topic", value, step);
      await p.click("#make");
      await step();
      await Promise.all([p.waitForNavigation({ waitUntil: "load" }), p.click("#links a")]);
      await step();
    },
  );

  add(
    "hidden-input-copy",
    "Wigeon",
    () =>
      page(
        "Alias",
        `<h1>Alias</h1><form id="f"><label>Alias <input id="alias"></label><input type="hidden" name="alias_copy" id="copy"><button id="go" type="button">Continue</button></form>`,
        `alias.addEventListener("input",()=>{copy.value=alias.value;go.dataset.alias=alias.value;go.id="go";});`,
      ),
    async (p, value, step) => {
      await typeInto(p, "#alias", value);
      await p.click("#go");
      await step();
    },
  );

  add(
    "controlled-value",
    "Gannet",
    () =>
      page(
        "City",
        `<h1>Weather</h1><input id="city" placeholder="City"><button id="next" type="button">Next</button>`,
        `city.addEventListener("input",()=>city.setAttribute("value",city.value));` +
          `city.addEventListener("keydown",e=>{if(e.key!=="Enter")return;city.placeholder="Last: "+city.value;city.setAttribute("aria-label","Last: "+city.value);city.value="";city.setAttribute("value","");});`,
      ),
    async (p, value, step) => {
      await typeInto(p, "#city", value);
      await p.keyboard.press("Enter");
      await step();
      await typeInto(p, "#city", "Oslo");
      await p.click("#next");
      await step();
    },
  );

  add(
    "attribute-echo",
    "Shrike",
    () =>
      page(
        "Notes",
        `<h1>Quick note</h1><label>Note <textarea id="note"></textarea></label><button id="send" type="button">Send</button>`,
        `note.addEventListener("input",()=>{send.title="Send note: "+note.value;send.setAttribute("aria-label","Send: "+note.value);send.dataset.testid=note.value;});`,
      ),
    async (p, value, step) => {
      await typeInto(p, "#note", value);
      await p.click("#send");
      await step();
    },
  );

  add(
    "submit-value",
    "Tern",
    () =>
      page(
        "Buttons",
        `<h1>Button maker</h1><form id="f"><label>Caption <input id="caption"></label><button id="make" type="button">Make button</button><span id="slot"></span></form>`,
        `f.addEventListener("submit",e=>e.preventDefault());make.addEventListener("click",()=>{const s=document.createElement("input");s.type="submit";s.value=caption.value;s.name=caption.value;slot.replaceChildren(s);caption.value="";});`,
      ),
    async (p, value, step) => {
      await typeAndLeave(p, "#caption", value, step);
      await p.click("#make");
      await step();
      await p.click("#slot input");
      await step();
    },
  );

  add(
    "valuetext-output",
    "Merlin",
    () =>
      page(
        "Levels",
        `<h1>Levels</h1><label>Level name <input id="level"></label><button id="set" type="button">Set level</button><div id="slider" role="slider" tabindex="0" aria-valuenow="3" aria-valuetext="" aria-label="Level">|||</div><output id="out"></output>`,
        `set.addEventListener("click",()=>{slider.setAttribute("aria-valuetext",level.value);out.textContent=level.value;level.value="";});`,
      ),
    async (p, value, step) => {
      await typeAndLeave(p, "#level", value, step);
      await p.click("#set");
      await step();
      await p.click("#slider");
      await step();
    },
  );

  add(
    "autocomplete",
    "Redpoll",
    () =>
      page(
        "Travel",
        `<h1>Travel</h1><label>Destination <input id="dest" role="combobox" aria-autocomplete="list" aria-controls="opts"></label><ul id="opts" role="listbox"></ul><button id="book" type="button">Book</button>`,
        `dest.addEventListener("input",()=>{opts.replaceChildren(...["city","region"].map(k=>{const li=document.createElement("li");li.setAttribute("role","option");li.textContent=dest.value+" ("+k+")";li.addEventListener("click",()=>{dest.value=li.textContent;opts.replaceChildren();});return li;}));});`,
      ),
    async (p, value, step) => {
      await typeInto(p, "#dest", value);
      await step();
      await p.click("#opts li");
      await step();
      await p.click("#book");
      await step();
    },
  );

  add(
    "same-origin-iframe",
    "Smew",
    (path) =>
      path.endsWith("/inner")
        ? page(
            "Inner",
            `<label>Coupon <input id="coupon"></label><p id="applied" role="status"></p><button id="apply" type="button">Apply</button>`,
            `apply.addEventListener("click",()=>{applied.textContent="Applied "+coupon.value;apply.textContent="Remove "+coupon.value;coupon.value="";});`,
          )
        : page("Cart", `<h1>Cart</h1><iframe id="frame" src="/case/same-origin-iframe/inner" width="400" height="160"></iframe>${LATER}`),
    async (p, value, step) => {
      const frameHandle = await p.waitForSelector("#frame");
      const frame = (await frameHandle!.contentFrame())!;
      await frame.waitForSelector("#coupon");
      await frame.click("#coupon");
      await p.keyboard.type(value);
      await p.keyboard.press("Tab");
      await step();
      await frame.click("#apply");
      await step();
      await frame.click("#apply");
      await step();
      await p.click("#later");
      await step();
    },
  );

  add(
    "open-shadow-root",
    "Scaup",
    () =>
      page(
        "Widgets",
        `<h1>Widgets</h1><name-card></name-card>${LATER}`,
        `customElements.define("name-card",class extends HTMLElement{constructor(){super();const r=this.attachShadow({mode:"open"});r.innerHTML='<label>Badge name <input id="n"></label><button id="b" type="button">Make badge</button><p id="p" role="status"></p>';` +
          `const n=r.getElementById("n"),b=r.getElementById("b"),p=r.getElementById("p");b.addEventListener("click",()=>{p.textContent="Badge for "+n.value;b.textContent="Badge: "+n.value;n.value="";});}});`,
      ),
    async (p, value, step) => {
      await p.click("pierce/#n");
      await p.keyboard.type(value);
      await p.keyboard.press("Tab");
      await step();
      await p.click("pierce/#b");
      await step();
      await p.click("pierce/#b");
      await step();
    },
  );

  add(
    "role-textbox",
    "Eider",
    () =>
      page(
        "Forum",
        `<h1>Forum</h1><div id="draft" role="textbox" tabindex="0" aria-label="Draft" style="border:1px solid #999;min-height:40px"></div><button id="post" type="button">Post</button><ul id="posts"></ul>`,
        `draft.addEventListener("keydown",e=>{if(e.key.length===1){draft.textContent+=e.key;e.preventDefault();}else if(e.key==="Backspace"){draft.textContent=draft.textContent.slice(0,-1);}});` +
          `post.addEventListener("click",()=>{const li=document.createElement("li");const b=document.createElement("button");b.textContent=draft.textContent;li.append(b);posts.append(li);draft.textContent="";});`,
      ),
    async (p, value, step) => {
      await typeInto(p, "#draft", value);
      await p.click("#post");
      await step();
      await p.click("#posts button");
      await step();
    },
  );

  add(
    "hidden-textarea-editor",
    "Brant",
    () =>
      page(
        "Playground",
        `<h1>Playground</h1><div class="editor" id="editor"><textarea id="input" aria-label="Code" autocapitalize="off" spellcheck="false"></textarea><div id="lines"><div class="line"></div></div></div><button id="run" type="button">Run</button><pre id="out" role="status"></pre>`,
        `editor.addEventListener("mousedown",e=>{e.preventDefault();input.focus();});` +
          `input.addEventListener("input",()=>{const last=lines.lastElementChild;last.textContent+=input.value;input.value="";});` +
          `input.addEventListener("keydown",e=>{if(e.key==="Enter"){e.preventDefault();const d=document.createElement("div");d.className="line";lines.append(d);}});` +
          `run.addEventListener("click",()=>{out.textContent="Ran: "+[...lines.children].map(l=>l.textContent).join(" ");});`,
      ),
    async (p, value, step) => {
      await p.click("#editor");
      await p.keyboard.type(value);
      await p.keyboard.press("Tab");
      await step();
      await p.click("#run");
      await step();
      await p.click("#editor");
      await step();
      await p.click("#run");
      await step();
    },
  );

  add(
    "contenteditable-blocks",
    "Garganey",
    () =>
      page(
        "Blog",
        `<h1>New post</h1><div id="story" contenteditable="true" aria-label="Story" style="border:1px solid #999;min-height:40px"></div><button id="publish" type="button">Publish</button><h2 id="preview"></h2>`,
        `publish.addEventListener("click",()=>{preview.textContent=story.innerText.replace(/\\n+/g," ");story.innerHTML="";});`,
      ),
    async (p, value, step) => {
      await typeInto(p, "#story", value);
      await p.click("#publish");
      await step();
      await p.click("#publish");
      await step();
    },
    `${canary("Garganey")} opening\nsecond ${crypto.randomUUID().slice(0, 6)} paragraph`,
  );

  return { cases, routes };
}
