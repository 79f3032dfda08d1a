import type { EvalAbility } from "./lookup-eval.fixture";

/**
 * A second evaluation set for ability lookup (issue #15), written at 08:30Z on 2026-11-24 before the
 * second round of matcher changes and never tuned on: the bench prints only its figures, not its
 * misses, so a change that helps `lookup-eval.fixture.ts` and not these is seen as overfitting.
 * It is looked up in an index holding both sets' abilities (the first set's abilities are
 * distractors). Same rules: requests worded as people say them, never the goal copied.
 */
export const HOLDOUT_ABILITIES: readonly EvalAbility[] = [
  {
    id: "hotel-cancel",
    goal: "Cancel a hotel reservation",
    site: "stay.example.com",
    site_title: "Example Stays",
    pages: [{ title: "My bookings", headings: ["My bookings", "Cancel booking"] }],
    requests: ["call off my hotel stay", "undo my room booking at the hotel", "drop the hotel reservation", "get rid of my upcoming hotel booking"],
  },
  {
    id: "insurance-renew",
    goal: "Renew my car insurance policy",
    site: "insure.example.com",
    site_title: "Example Insurance",
    pages: [{ title: "Policies", headings: ["My policies", "Renew policy"] }],
    requests: [
      "extend my auto insurance",
      "keep my vehicle coverage going another year",
      "renew the insurance on my automobile",
      "my car insurance is expiring, sort it out",
    ],
  },
  {
    id: "drive-share",
    goal: "Share a folder with a teammate",
    site: "drive.example.com",
    site_title: "Drive",
    pages: [{ title: "My drive", headings: ["My drive", "Share with people"] }],
    requests: [
      "give my colleague access to the folder",
      "let a coworker see my directory",
      "send a folder link to someone on my team",
      "make the folder available to my team mate",
    ],
  },
  {
    id: "app-language",
    goal: "Change the interface language to French",
    site: "app.example.com",
    site_title: "Example App",
    pages: [{ title: "Preferences", headings: ["Preferences", "Language and region"] }],
    requests: ["switch the app to french", "I want the display in french", "set french as my language", "make the screens show french"],
  },
  {
    id: "phone-topup",
    goal: "Top up my phone credit",
    site: "mobile.example.com",
    site_title: "Example Mobile",
    pages: [{ title: "Top up", headings: ["Add credit"] }],
    requests: ["add money to my mobile plan", "recharge my prepaid phone", "buy more airtime", "put credit on my cell"],
  },
  {
    id: "card-lost",
    goal: "Report a lost credit card",
    site: "bank.example.com",
    site_title: "Example Bank",
    pages: [{ title: "Cards", headings: ["Card services", "Lost or stolen card"] }],
    requests: ["I lost my visa card", "my card was stolen, block it", "freeze my missing credit card", "tell the bank my card is gone"],
  },
  {
    id: "course-enroll",
    goal: "Enroll in an online course",
    site: "learn.example.edu",
    site_title: "Example Learning",
    pages: [{ title: "Catalog", headings: ["Course catalog", "Enroll"] }],
    requests: ["sign me up for a class", "register for the python course", "join an online training", "take a course on the learning site"],
  },
  {
    id: "charity-donate",
    goal: "Donate to a charity",
    site: "give.example.org",
    site_title: "Give",
    pages: [{ title: "Donate", headings: ["Donate", "Choose an amount"] }],
    requests: ["give money to the charity", "make a contribution to the cause", "send a donation", "support the nonprofit with a gift"],
  },
  {
    id: "ride-rate",
    goal: "Rate the driver after a ride",
    site: "ride.example.com",
    site_title: "Example Rides",
    pages: [{ title: "Trips", headings: ["Your trips", "Rate your driver"] }],
    requests: ["leave a review for my taxi driver", "give stars to the driver from my last trip", "score my chauffeur", "feedback on the person who drove me"],
  },
  {
    id: "ship-label",
    goal: "Print a shipping label",
    site: "ship.example.com",
    site_title: "Example Shipping",
    pages: [{ title: "Ship", headings: ["Create shipment", "Print label"] }],
    requests: [
      "make a postage label for my package",
      "print the label to mail this parcel",
      "generate a shipping sticker",
      "get a label so I can send the box",
    ],
  },
  {
    id: "apartment-search",
    goal: "Search for apartments to rent",
    site: "homes.example.com",
    site_title: "Example Homes",
    pages: [{ title: "Rentals", headings: ["Rentals", "Search results"] }],
    requests: ["find a flat to rent", "look for housing to lease", "show places for rent near me", "hunt for a new apartment"],
  },
  {
    id: "mail-cleanup",
    goal: "Delete old emails from the inbox",
    site: "mail.example.com",
    site_title: "Webmail",
    pages: [{ title: "Inbox", headings: ["Inbox"] }],
    requests: ["clean up my mailbox", "remove messages I no longer need", "trash old mail", "clear out the inbox"],
  },
];

/** Requests no ability of either set does. */
export const HOLDOUT_UNRELATED: readonly string[] = [
  "what's the population of canada",
  "tell me a riddle",
  "how long should a nap be",
  "what's a synonym for happy",
  "flip a coin",
  "who painted the mona lisa",
  "play my workout playlist",
  "how many ounces are in a cup",
  "when is the next full moon",
  "give me a motivational quote",
  "what rhymes with orange",
  "open the garage door",
];
