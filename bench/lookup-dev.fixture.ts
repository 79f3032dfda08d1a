import type { EvalAbility } from "./lookup-eval.fixture";

/**
 * A development set for ability lookup (issue #15), written at 11:05Z on 2026-11-24 in the third
 * round, before running the matcher on it. Unlike the second and third sets, its misses are printed
 * (`--misses`) and read: with the first set, it is what the third round's changes were studied on.
 * Looked up among the first set's abilities and its own.
 */
export const DEV_ABILITIES: readonly EvalAbility[] = [
  {
    id: "passport-renew",
    goal: "Renew my passport",
    site: "gov.example.gov",
    site_title: "Government Services",
    pages: [{ title: "Passports", headings: ["Passports", "Renew a passport"] }],
    requests: ["my passport is about to expire, get a new one", "apply for passport renewal", "extend my travel document", "replace my expired passport"],
  },
  {
    id: "mealkit-pause",
    goal: "Pause my meal kit deliveries",
    site: "meals.example.com",
    site_title: "Example Meals",
    pages: [{ title: "Deliveries", headings: ["Deliveries", "Skip a week"] }],
    requests: ["skip next week's meal box", "stop my food deliveries for a while", "hold my meal kit shipments", "put my recipe box on hold"],
  },
  {
    id: "resume-upload",
    goal: "Upload a resume to a job application",
    site: "careers.example.com",
    site_title: "Example Careers",
    pages: [{ title: "Apply", headings: ["Apply", "Upload CV"] }],
    requests: ["attach my CV to the application", "send my resume for this job", "apply to the position with my resume", "submit my curriculum vitae"],
  },
  {
    id: "data-usage",
    goal: "Check my data usage",
    site: "mobile.example.com",
    site_title: "Example Mobile",
    pages: [{ title: "Usage", headings: ["Usage", "Data"] }],
    requests: ["how much mobile data have I used", "see my internet usage this month", "am I close to my data limit", "view my phone plan consumption"],
  },
  {
    id: "pothole-report",
    goal: "Report a pothole",
    site: "city.example.org",
    site_title: "City Hall",
    pages: [{ title: "Report a problem", headings: ["Report a problem", "Road issue"] }],
    requests: [
      "tell the city about a hole in the road",
      "complain about a damaged street",
      "log a road repair request",
      "flag the broken pavement on my street",
    ],
  },
  {
    id: "admin-group",
    goal: "Add a user to the admin group",
    site: "admin.example.io",
    site_title: "Admin Console",
    pages: [{ title: "Users", headings: ["Users", "Groups"] }],
    requests: ["give maria admin rights", "make tom an administrator", "grant admin access to a colleague", "put a new member in the admins group"],
  },
  {
    id: "seat-change",
    goal: "Change my flight seat",
    site: "fly.example.com",
    site_title: "Example Air",
    pages: [{ title: "Manage booking", headings: ["Manage booking", "Seat map"] }],
    requests: ["pick a window seat on my flight", "switch to an aisle seat", "move my seat on the plane", "select a different seat for my trip"],
  },
  {
    id: "card-freeze",
    goal: "Freeze my debit card",
    site: "bank.example.com",
    site_title: "Example Bank",
    pages: [{ title: "Cards", headings: ["Cards", "Lock card"] }],
    requests: ["lock my card, I think I lost it", "temporarily block my bank card", "stop anyone using my debit card", "disable my card for now"],
  },
  {
    id: "blog-post",
    goal: "Write a blog post",
    site: "blog.example.net",
    site_title: "Example Blog",
    pages: [{ title: "Posts", headings: ["Posts", "New post"] }],
    requests: ["draft a new article for the blog", "publish a post on my website", "compose an entry for my blog", "start writing a new blog article"],
  },
  {
    id: "grocery-order",
    goal: "Order groceries for delivery",
    site: "grocer.example.com",
    site_title: "Example Grocer",
    pages: [{ title: "Shop", headings: ["Shop", "Basket"] }],
    requests: ["get food delivered from the supermarket", "buy milk and eggs online", "do the weekly grocery shop online", "have groceries brought to my door"],
  },
  {
    id: "chat-poll",
    goal: "Create a poll in the team chat",
    site: "chat.example.com",
    site_title: "Example Chat",
    pages: [{ title: "Channel", headings: ["Channel", "New poll"] }],
    requests: ["ask the team to vote on lunch", "make a survey in slack", "start a vote in our channel", "set up a quick poll for the group"],
  },
  {
    id: "direct-deposit",
    goal: "Set up direct deposit",
    site: "payroll.example.com",
    site_title: "Example Payroll",
    pages: [{ title: "Pay settings", headings: ["Pay settings", "Direct deposit"] }],
    requests: [
      "have my salary paid into my new bank account",
      "change where my paycheck goes",
      "add my bank details for payroll",
      "get my wages deposited automatically",
    ],
  },
];

/** Requests no ability of the first set or this one does. */
export const DEV_UNRELATED: readonly string[] = [
  "how do volcanoes form",
  "play the next song",
  "what's the meaning of life",
  "how many teaspoons in a tablespoon",
  "who invented the telephone",
  "make me laugh",
  "what is the square root of 144",
  "tell me about the roman empire",
  "what's a good name for a cat",
  "how long do elephants live",
];
