import type { EvalAbility } from "./lookup-eval.fixture";

/**
 * A blind evaluation set for ability lookup (issue #15), written at 13:58Z on 2026-11-24 by the lead
 * engineer while the fourth round's matcher was being built in another branch, without reading that
 * round's domain lexicon, its misses or its code, and committed to `main` before any matcher ran on
 * it. Sixteen abilities of imagined everyday apps, each with four requests worded as people say them
 * (other verbs and nouns, brand words, abbreviations, a name or a date in the request), looked up
 * among every set's abilities; and twelve requests that no ability of any set does.
 *
 * Never tune on it: the bench prints its figures only, never its misses.
 */
export const BLIND_ABILITIES: readonly EvalAbility[] = [
  {
    id: "library-renew",
    goal: "Renew a library book",
    site: "library.example.org",
    site_title: "City Library – My Account",
    pages: [{ title: "Checked out", headings: ["Checked out items", "Renew"] }],
    requests: [
      "extend the due date on the novel I borrowed",
      "keep the library book for another few weeks",
      "renew the books I checked out",
      "I need more time with my library loan",
    ],
  },
  {
    id: "city-pothole",
    goal: "Report a pothole to the city",
    site: "311.example.gov",
    site_title: "City Services",
    pages: [{ title: "New service request", headings: ["Report a problem", "Street and sidewalk"] }],
    requests: [
      "tell the council about a hole in the road",
      "complain about the damaged street on Elm",
      "log a road repair request",
      "let the city know the pavement is broken outside my house",
    ],
  },
  {
    id: "bank-transfer",
    goal: "Transfer money between my accounts",
    site: "bank.example.com",
    site_title: "Example Bank Online",
    pages: [{ title: "Transfers", headings: ["Move money", "From account", "To account"] }],
    requests: [
      "move 200 from checking to savings",
      "shift some funds into my savings account",
      "put cash from my current account into the savings one",
      "do an internal transfer",
    ],
  },
  {
    id: "calendar-meeting",
    goal: "Schedule a meeting with a colleague",
    site: "calendar.example.com",
    site_title: "Calendar",
    pages: [{ title: "New event", headings: ["New event", "Guests", "Find a time"] }],
    requests: ["set up a call with Priya next Tuesday", "book time with my manager", "put a 1:1 on the calendar", "arrange a catch-up with the team lead"],
  },
  {
    id: "album-upload",
    goal: "Upload photos to a shared album",
    site: "photos.example.com",
    site_title: "Example Photos",
    pages: [{ title: "Shared albums", headings: ["Shared albums", "Add photos"] }],
    requests: [
      "add the vacation pictures to the family album",
      "share these shots in our group album",
      "put my snaps in the shared gallery",
      "post images to the album we all use",
    ],
  },
  {
    id: "gym-cancel",
    goal: "Cancel my gym membership",
    site: "fit.example.com",
    site_title: "FitClub Members",
    pages: [{ title: "Membership", headings: ["Your membership", "Cancel membership"] }],
    requests: ["stop my fitness club subscription", "quit the gym", "end my membership at the health club", "I don't want to pay for the gym anymore"],
  },
  {
    id: "energy-usage",
    goal: "Check my electricity usage",
    site: "power.example.com",
    site_title: "Example Energy – My account",
    pages: [{ title: "Usage", headings: ["Energy usage", "Daily kWh"] }],
    requests: ["how much power did we use this month", "see our energy consumption", "look at my meter readings", "what's my kwh for october"],
  },
  {
    id: "timesheet-submit",
    goal: "Submit my timesheet",
    site: "hr.example.com",
    site_title: "Example HR",
    pages: [{ title: "Timesheets", headings: ["This week", "Submit for approval"] }],
    requests: [
      "log my hours for this week",
      "fill in the hours I worked",
      "send in my weekly time report",
      "record the time I spent on the project and hand it in",
    ],
  },
  {
    id: "order-address",
    goal: "Change the delivery address of an order",
    site: "shop.example.net",
    site_title: "Example Market",
    pages: [{ title: "Order details", headings: ["Order details", "Shipping address"] }],
    requests: [
      "ship my package to my office instead",
      "update where my parcel goes",
      "send the order to a different address",
      "fix the shipping address on my purchase",
    ],
  },
  {
    id: "workspace-invite",
    goal: "Invite a new member to the workspace",
    site: "chat.example.com",
    site_title: "Example Chat",
    pages: [{ title: "Workspace settings", headings: ["Members", "Invite people"] }],
    requests: [
      "add a coworker to our slack",
      "send an invite to join the team space",
      "bring Jane into the workspace",
      "give my new colleague access to our chat",
    ],
  },
  {
    id: "mail-away",
    goal: "Turn on an out-of-office reply",
    site: "mail.example.com",
    site_title: "Example Mail",
    pages: [{ title: "Settings", headings: ["General", "Automatic replies"] }],
    requests: [
      "turn on my vacation autoresponder",
      "auto-reply to emails while I'm away",
      "let people who email me know I'm on holiday",
      "set up an away message",
    ],
  },
  {
    id: "pharmacy-refill",
    goal: "Refill a prescription",
    site: "pharmacy.example.com",
    site_title: "Example Pharmacy",
    pages: [{ title: "Prescriptions", headings: ["My prescriptions", "Request refill"] }],
    requests: ["reorder my medication", "get more of my blood pressure pills", "ask the pharmacy for a refill", "my meds are running out, order more"],
  },
  {
    id: "car-quote",
    goal: "Get a car insurance quote",
    site: "insure.example.com",
    site_title: "Example Insurance",
    pages: [{ title: "Auto insurance", headings: ["Your vehicle", "Your quote"] }],
    requests: [
      "how much would it cost to insure my car",
      "price an auto policy",
      "get an estimate for vehicle insurance",
      "quote me for cover on my new Honda",
    ],
  },
  {
    id: "channel-mute",
    goal: "Mute notifications for a channel",
    site: "chat.example.com",
    site_title: "Example Chat",
    pages: [{ title: "#general", headings: ["Channel details", "Notifications"] }],
    requests: [
      "stop the pings from the random channel",
      "silence alerts from this group chat",
      "turn off notifications for #general",
      "I don't want to hear about that channel anymore",
    ],
  },
  {
    id: "tax-forms",
    goal: "Download my tax documents",
    site: "payroll.example.com",
    site_title: "Example Payroll",
    pages: [{ title: "Documents", headings: ["Tax documents", "2025"] }],
    requests: ["get my W-2", "grab the 1099 forms", "save my tax forms as pdf", "fetch my year-end tax statements"],
  },
  {
    id: "crm-contact",
    goal: "Add a new contact to the CRM",
    site: "crm.example.com",
    site_title: "Example CRM",
    pages: [{ title: "Contacts", headings: ["Contacts", "New contact"] }],
    requests: ["create a lead for Acme's buyer", "save this prospect in salesforce", "enter a new customer record", "put John Smith in our contacts database"],
  },
];

export const BLIND_UNRELATED: readonly string[] = [
  "what's the weather tomorrow",
  "translate hello into french",
  "how tall is mount everest",
  "write me a haiku about autumn",
  "what time is it in tokyo",
  "play some jazz",
  "convert 5 miles to kilometers",
  "who won the world cup in 2018",
  "recommend a good science fiction novel",
  "how do I boil an egg",
  "tell me a fun fact about octopuses",
  "set a timer for ten minutes",
];
