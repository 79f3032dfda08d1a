import http from "node:http";

// The content-script bench's page: a shop back-office form and catalogue, served from 127.0.0.1.

interface FieldSpec {
  id: string;
  label: string;
  /** An <input type>, or "select" / "textarea". */
  type: string;
  autocomplete?: string;
  options?: string[];
}

const FIELDS: readonly FieldSpec[] = [
  { id: "first-name", label: "First name", type: "text", autocomplete: "given-name" },
  { id: "last-name", label: "Last name", type: "text", autocomplete: "family-name" },
  { id: "email", label: "Email", type: "email", autocomplete: "email" },
  { id: "phone", label: "Phone", type: "tel", autocomplete: "tel" },
  { id: "company", label: "Company", type: "text", autocomplete: "organization" },
  { id: "address-1", label: "Address", type: "text", autocomplete: "address-line1" },
  { id: "address-2", label: "Address line 2", type: "text", autocomplete: "address-line2" },
  { id: "city", label: "City", type: "text", autocomplete: "address-level2" },
  { id: "postcode", label: "Postcode", type: "text", autocomplete: "postal-code" },
  { id: "country", label: "Country", type: "select", options: ["France", "Germany", "Italy", "Netherlands", "Norway", "Portugal", "Spain", "Sweden"] },
  { id: "region", label: "Region", type: "select", options: ["North", "East", "South", "West", "Central", "Islands"] },
  { id: "delivery", label: "Delivery", type: "select", options: ["Standard", "Express", "Next day", "Pick-up point", "In store"] },
  { id: "delivery-date", label: "Delivery date", type: "date" },
  { id: "quantity", label: "Quantity", type: "number" },
  { id: "coupon", label: "Coupon code", type: "text" },
  { id: "account-password", label: "Account password", type: "password", autocomplete: "new-password" },
  { id: "notes", label: "Delivery notes", type: "textarea" },
  { id: "newsletter", label: "Send me the newsletter", type: "checkbox" },
  { id: "gift-wrap", label: "Gift wrap", type: "checkbox" },
  { id: "invoice", label: "Paper invoice", type: "checkbox" },
];
const CONTACT_OPTIONS = ["Email", "Phone", "Post"] as const;
export const ROWS = 500;
const PRODUCTS = [
  "Blue widget",
  "Steel bracket",
  "Oak shelf",
  "Wool blanket",
  "Desk lamp",
  "Ceramic mug",
  "Garden hose",
  "Wall clock",
  "Linen towel",
  "Glass jar",
];

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function fieldHtml(field: FieldSpec): string {
  const autocomplete = field.autocomplete ? ` autocomplete="${field.autocomplete}"` : "";
  const name = ` name="${field.id}" id="${field.id}"`;
  if (field.type === "checkbox") return `<div class="check"><input type="checkbox"${name}><label for="${field.id}">${escapeHtml(field.label)}</label></div>`;
  const control =
    field.type === "select"
      ? `<select${name}>${(field.options ?? []).map((option) => `<option>${escapeHtml(option)}</option>`).join("")}</select>`
      : field.type === "textarea"
        ? `<textarea${name} rows="2"></textarea>`
        : `<input type="${field.type}"${name}${autocomplete}>`;
  return `<div class="field"><label for="${field.id}">${escapeHtml(field.label)}</label>${control}</div>`;
}

/** The page's own script: the cart, the checkout and the form's reactions to what a person does. */
const PAGE_SCRIPT = `  const cart = new Map();
  const status = document.getElementById("cart-status");
  const lines = document.getElementById("cart-lines");
  const render = () => {
    status.textContent = cart.size === 0 ? "The cart is empty." : cart.size + (cart.size === 1 ? " item" : " items") + " in the cart.";
    lines.replaceChildren(...[...cart.values()].slice(-8).map((name) => Object.assign(document.createElement("li"), { textContent: name })));
  };
  document.getElementById("catalogue").addEventListener("click", (event) => {
    const button = event.target.closest("button.add");
    if (!button) return;
    const row = button.closest("li");
    const name = row.querySelector(".name").textContent;
    if (cart.has(row.id)) cart.delete(row.id); else cart.set(row.id, name);
    row.classList.toggle("in-cart", cart.has(row.id));
    button.textContent = cart.has(row.id) ? "Remove" : "Add";
    render();
  });
  document.getElementById("clear-cart").addEventListener("click", () => {
    for (const id of cart.keys()) {
      const row = document.getElementById(id);
      row.classList.remove("in-cart");
      row.querySelector("button").textContent = "Add";
    }
    cart.clear();
    render();
  });
  document.getElementById("checkout").addEventListener("click", () => { status.textContent = "Checkout needs a saved order."; });
  const form = document.getElementById("order");
  const formStatus = document.getElementById("form-status");
  form.addEventListener("change", (event) => {
    const field = event.target;
    if (field.type === "email") field.setAttribute("aria-invalid", String(!field.value.includes("@")));
    if (field.id === "country") formStatus.textContent = "Shipping to " + field.value + ".";
  });
  document.getElementById("apply-coupon").addEventListener("click", () => {
    const code = document.getElementById("coupon").value;
    formStatus.textContent = code ? "Coupon applied." : "Enter a coupon code first.";
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    formStatus.textContent = "Order saved at " + new Date().toLocaleTimeString() + ".";
  });`;

/** A realistic shop back-office page: the page's own script reacts to clicks, edits and choices. */
export function fixturePage(): string {
  const rows = Array.from({ length: ROWS }, (_, index) => {
    const number = String(index + 1).padStart(3, "0");
    const product = PRODUCTS[index % PRODUCTS.length]!;
    const price = (4 + ((index * 37) % 200) / 4).toFixed(2);
    return `<li id="row-${index}" class="row"><span class="name">${product} ${number}</span><span class="sku">SKU-${number}</span><span class="price">€${price}</span><button type="button" class="add" data-row="${index}">Add</button></li>`;
  }).join("\n");
  const contact = CONTACT_OPTIONS.map(
    (option) => `<label><input type="radio" name="contact" id="contact-${option.toLowerCase()}" value="${option.toLowerCase()}"> ${option}</label>`,
  ).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Order desk</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 0; }
  header { display: flex; gap: 16px; align-items: center; padding: 8px 16px; background: #234; color: white; }
  header a { color: white; }
  main { display: grid; grid-template-columns: 440px 1fr 220px; gap: 16px; padding: 16px; }
  .field { display: grid; grid-template-columns: 140px 1fr; gap: 6px; margin: 4px 0; }
  #catalogue { height: 640px; overflow: auto; margin: 0; padding: 0; list-style: none; border: 1px solid #ccc; }
  .row { display: grid; grid-template-columns: 1fr 90px 70px 80px; padding: 4px 8px; border-bottom: 1px solid #eee; }
  .row.in-cart { background: #eef8ee; }
  [aria-invalid="true"] { outline: 2px solid #c33; }
</style>
</head>
<body>
<header><strong>Order desk</strong><nav aria-label="Sections"><a href="#orders">Orders</a> <a href="#customers">Customers</a> <a href="#reports">Reports</a></nav></header>
<main>
  <section aria-labelledby="order-heading">
    <h2 id="order-heading">New order</h2>
    <form id="order">
      ${FIELDS.map(fieldHtml).join("\n      ")}
      <fieldset><legend>Contact me by</legend>${contact}</fieldset>
      <p><button type="submit" id="save">Save order</button> <button type="button" id="apply-coupon">Apply coupon</button> <button type="reset" id="reset">Reset</button></p>
      <p role="status" id="form-status"></p>
    </form>
  </section>
  <section aria-labelledby="catalogue-heading">
    <h2 id="catalogue-heading">Catalogue</h2>
    <ul id="catalogue">
${rows}
    </ul>
  </section>
  <aside aria-labelledby="cart-heading">
    <h2 id="cart-heading">Cart</h2>
    <p role="status" id="cart-status">The cart is empty.</p>
    <ol id="cart-lines"></ol>
    <p><button type="button" id="clear-cart">Clear cart</button> <button type="button" id="checkout">Checkout</button></p>
  </aside>
</main>
<script>
${PAGE_SCRIPT}
</script>
</body>
</html>`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function serve(html: string): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    if (new URL(request.url ?? "/", "http://bench").pathname !== "/") {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}
