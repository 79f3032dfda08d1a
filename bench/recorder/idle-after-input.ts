import puppeteer, { type Page } from "puppeteer-core";
import { CHROMIUM_PATH } from "../../e2e/test-support/extension-browser";

// `node --import tsx bench/recorder/idle-after-input.ts`: when does Chromium grant an idle period
// after input driven through CDP (issue #32)? Why the recorder bench's steps end with a mouse move.
// A button's click handler asks for an idle callback (timeout 5 s) after a delay; each trial clicks
// it 8 times, 600 ms apart, with or without one CDP mouse move after each click, then a script
// click for comparison. Prints how long each callback waited and whether it ran by its timeout.

const CLICKS = 8;
const GAP_MS = 600;
const PAGE = `<button id="b" style="width:200px;height:100px">b</button><script>
window.waits = []; window.delay = 0;
document.getElementById("b").addEventListener("click", () => setTimeout(() => {
  const asked = performance.now();
  requestIdleCallback((deadline) => waits.push({ ms: Math.round(performance.now() - asked), timedOut: deadline.didTimeout }), { timeout: 5000 });
}, window.delay));
</script>`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function trial(page: Page, delay: number, moveAfter: boolean): Promise<string> {
  await page.evaluate((value) => {
    Object.assign(window, { waits: [], delay: value });
  }, delay);
  for (let click = 0; click < CLICKS; click += 1) {
    await page.mouse.click(100, 50);
    if (moveAfter) await page.mouse.move(103 + click, 52);
    await sleep(GAP_MS);
  }
  await sleep(5200);
  const waits = await page.evaluate(() => (window as unknown as { waits: { ms: number; timedOut: boolean }[] }).waits);
  const late = waits.filter((wait) => wait.ms >= GAP_MS - delay - 50).length;
  return `| ${delay} ms | ${moveAfter ? "click, then one mouse move" : "click only"} | ${waits.map((wait) => `${wait.ms}${wait.timedOut ? "*" : ""}`).join(" ")} | ${late} of ${waits.length} |`;
}

const browser = await puppeteer.launch({ executablePath: CHROMIUM_PATH, headless: true, pipe: true, args: ["--no-sandbox", "--disable-gpu"] });
try {
  const page = await browser.newPage();
  await page.setContent(PAGE);
  console.log(`idle callback waits after CDP input (${CLICKS} clicks ${GAP_MS} ms apart; * = ran by its 5 s timeout)`);
  console.log("| asked after the click | input | each callback's wait, ms | waited for the next input or the timeout |");
  console.log("|---|---|---|---|");
  for (const delay of [0, 20, 100, 300]) {
    for (const moveAfter of [false, true]) console.log(await trial(page, delay, moveAfter));
  }
  await page.evaluate((gap) => {
    Object.assign(window, { waits: [], delay: 0 });
    for (let click = 0; click < 5; click += 1) setTimeout(() => document.getElementById("b")!.click(), click * gap);
  }, GAP_MS);
  await sleep(5 * GAP_MS + 500);
  const scripted = await page.evaluate(() => (window as unknown as { waits: { ms: number }[] }).waits);
  console.log(`script clicks (element.click()): ${scripted.map((wait) => wait.ms).join(" ")} ms`);
} finally {
  await browser.close();
}
