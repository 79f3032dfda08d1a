import type { EvalAbility } from "./lookup-eval.fixture";

/**
 * A fifth blind evaluation set for ability lookup (issue #15), written at 01:29Z on 2026-11-25 by a
 * helper engineer (branch `s9-blind5`) before the ninth session's lookup round ran on anything, without
 * reading any matcher code, any other engineer's work or any lookup misses. Twenty abilities of app
 * kinds no earlier set has (a smart irrigation controller, an employee benefits portal, hearing care,
 * parcel lockers, an art museum, a trademark office, a warehouse manager, community gardens, a
 * recreation centre's swim classes, a pet microchip registry, a wine club, a piano technician, a
 * chimney sweep, an employee recognition board, a shift planner, a genealogy site, a paddle-sports
 * rental, a bakery), each given as the compiler gets it (goal, site, page titles and headings), with
 * four requests worded as people say them (the circumstance instead of the action, other verbs and
 * nouns, names, dates and amounts). Two pairs are opposite actions on the same app (sprinklers on and
 * off; a dependent added to and removed from a health plan), so a matcher that ignores the direction
 * of an action loses on them. Fifteen requests no ability of any set does; five of them name a noun of
 * one of these apps without asking for its task.
 *
 * Never tune on it: `bench/lookup-blind.ts` prints its figures only, never its misses.
 */
export const BLIND5_ABILITIES: readonly EvalAbility[] = [
  {
    id: "irrigation-start",
    goal: "Turn on the sprinklers for the back lawn",
    site: "irrigation.example.com",
    site_title: "Example Smart Irrigation",
    pages: [{ title: "Zones", headings: ["Back lawn", "Front beds", "Run now"] }],
    requests: [
      "the grass out back is looking brown, give it a good soak",
      "water the backyard for 20 minutes",
      "start zone 2 now",
      "can you get the irrigation running behind the house? it's been so dry",
    ],
  },
  {
    id: "irrigation-stop",
    goal: "Turn off the sprinklers for the back lawn",
    site: "irrigation.example.com",
    site_title: "Example Smart Irrigation",
    pages: [{ title: "Zones", headings: ["Back lawn", "Front beds", "Run now"] }],
    requests: [
      "it's pouring rain, shut the watering off",
      "stop watering the backyard",
      "the kids are playing out back, kill the sprinklers",
      "halt zone 2 right now, it's flooding the patio",
    ],
  },
  {
    id: "benefits-add-dependent",
    goal: "Add a dependent to my health insurance plan",
    site: "benefits.example.com",
    site_title: "Example Benefits Portal",
    pages: [{ title: "My coverage", headings: ["Medical plan", "Covered dependents", "Life events"] }],
    requests: [
      "we just had a baby, get her onto my medical coverage",
      "put my new husband on my work health insurance",
      "enroll my stepson Marco in my employer's medical plan",
      "how do I get my wife covered under my benefits",
    ],
  },
  {
    id: "benefits-remove-dependent",
    goal: "Remove a dependent from my health insurance plan",
    site: "benefits.example.com",
    site_title: "Example Benefits Portal",
    pages: [{ title: "My coverage", headings: ["Medical plan", "Covered dependents", "Life events"] }],
    requests: [
      "my son turned 26 and is aging out, take him off my medical",
      "we're divorced now, drop my ex from my coverage",
      "Jake got insurance at his new job so he doesn't need to be on mine anymore",
      "end my daughter's coverage on my work plan",
    ],
  },
  {
    id: "hearing-batteries",
    goal: "Order batteries for my hearing aids",
    site: "hearing.example.com",
    site_title: "Example Hearing Care",
    pages: [{ title: "Supplies", headings: ["Batteries and chargers", "Domes and wax guards"] }],
    requests: [
      "grandpa's hearing aids keep dying, get him more size 312 cells",
      "I'm running low on the little zinc batteries for my ear pieces",
      "restock size 13 for my Phonaks",
      "ship me a 60-pack of cells for my hearing devices",
    ],
  },
  {
    id: "locker-redirect",
    goal: "Send my parcel to a pickup locker",
    site: "parcels.example.com",
    site_title: "Example Parcel Lockers",
    pages: [{ title: "Delivery options", headings: ["Change where it's delivered", "Choose a locker"] }],
    requests: [
      "I won't be home Thursday, have the package dropped at a locker instead",
      "reroute my Amazon box to the locker at the train station",
      "nobody's around to sign for my delivery, can it go to one of those collection boxes",
      "divert shipment 4471 to the locker by the supermarket",
    ],
  },
  {
    id: "museum-entry",
    goal: "Buy timed entry tickets to the museum",
    site: "museum.example.org",
    site_title: "Example Museum of Art",
    pages: [{ title: "Visit", headings: ["Plan your visit", "Choose a date and time", "Admission"] }],
    requests: [
      "two adults for the Van Gogh exhibit Saturday at 11",
      "get us admission to the art gallery next Sunday afternoon",
      "we want to see the Impressionist wing with the kids tomorrow, sort out getting in",
      "book a 2pm slot to visit the Met on Friday",
    ],
  },
  {
    id: "trademark-file",
    goal: "File a trademark application",
    site: "trademarks.example.gov",
    site_title: "Example Patent and Trademark Office",
    pages: [{ title: "Apply for a trademark", headings: ["Mark information", "Goods and services", "Filing fee"] }],
    requests: [
      "I want to register the name of my coffee brand so nobody can copy it",
      "protect my logo legally",
      "get 'Bramble & Bean' registered as our brand name",
      "start the paperwork to register a mark for my clothing line",
    ],
  },
  {
    id: "warehouse-damaged",
    goal: "Record damaged stock in the warehouse inventory",
    site: "wms.example.com",
    site_title: "Example Warehouse Manager",
    pages: [{ title: "Stock adjustments", headings: ["Adjust quantity", "Reason: damaged", "Bin location"] }],
    requests: [
      "a forklift crushed 12 cases of SKU 88-301, write them off",
      "three pallets of glassware came in broken, fix the counts",
      "mark 5 units in bin A-14 as unsellable",
      "log the water-damaged boxes from aisle 7",
    ],
  },
  {
    id: "garden-plot",
    goal: "Apply for a community garden plot",
    site: "gardens.example.org",
    site_title: "Example Community Gardens",
    pages: [{ title: "Plots", headings: ["Join the waiting list", "Plot sizes"] }],
    requests: [
      "I'd love a patch of land to grow tomatoes on this spring",
      "get me on the list for an allotment",
      "sign up for a raised bed at the Maple Street growing space",
      "my apartment has no yard, put my name down somewhere I can grow vegetables",
    ],
  },
  {
    id: "swim-lessons",
    goal: "Enroll my child in swimming lessons",
    site: "rec.example.org",
    site_title: "Example Recreation Center",
    pages: [{ title: "Aquatics programs", headings: ["Youth swim classes", "Register"] }],
    requests: [
      "sign Maya up for learn-to-swim on Saturday mornings",
      "my 5 year old is scared of the water, get him into a class at the pool",
      "register the twins for the beginner aquatics course in June",
      "put my kid in swim school this summer",
    ],
  },
  {
    id: "pet-microchip",
    goal: "Update my pet's microchip contact details",
    site: "petchip.example.com",
    site_title: "Example Pet Microchip Registry",
    pages: [{ title: "My pets", headings: ["Owner details", "Chip number"] }],
    requests: [
      "we moved, so if Biscuit gets lost the shelter would call the wrong number",
      "change the phone number linked to my cat's chip",
      "put my new address on the registry for my dog's implant",
      "I adopted Luna and her chip still lists the old owner",
    ],
  },
  {
    id: "wine-skip",
    goal: "Skip next month's wine club shipment",
    site: "cellar.example.com",
    site_title: "Example Wine Club",
    pages: [{ title: "Upcoming shipments", headings: ["March shipment", "Skip or reschedule"] }],
    requests: [
      "we still have 8 bottles from last time, don't send the March case",
      "I don't want the next box of reds",
      "hold off on my vineyard delivery for April just this once",
      "pass on the upcoming cellar selection",
    ],
  },
  {
    id: "piano-tuning",
    goal: "Book a piano tuning",
    site: "pianotech.example.com",
    site_title: "Example Piano Service",
    pages: [{ title: "Services", headings: ["Tuning", "Repairs", "Pick a date"] }],
    requests: [
      "our upright sounds sour, get someone out to fix the pitch",
      "middle C is flat, can a technician come next week",
      "have a tuner come to the house before Lily's recital",
      "schedule someone to service the baby grand",
    ],
  },
  {
    id: "chimney-sweep",
    goal: "Schedule a chimney sweep",
    site: "sweeps.example.com",
    site_title: "Example Chimney Services",
    pages: [{ title: "Book a sweep", headings: ["Fireplace cleaning", "Inspection"] }],
    requests: [
      "get the flue cleaned before we light the first fire of winter",
      "our fireplace smells smoky, have someone clean it out",
      "book a soot clean and inspection for the wood stove",
      "need the chimney done in October",
    ],
  },
  {
    id: "kudos-nominate",
    goal: "Nominate a coworker for an award",
    site: "recognition.example.com",
    site_title: "Example Recognition",
    pages: [{ title: "Give recognition", headings: ["Nominate", "Award category", "Why they deserve it"] }],
    requests: [
      "Priya saved the launch last week, I want her recognised for it",
      "put Tom forward for employee of the month",
      "give the support team a shout-out on the kudos board",
      "submit my colleague for the quarterly excellence prize",
    ],
  },
  {
    id: "shift-swap",
    goal: "Swap a shift with a coworker",
    site: "shifts.example.com",
    site_title: "Example Shift Planner",
    pages: [{ title: "My schedule", headings: ["Upcoming shifts", "Trade request"] }],
    requests: [
      "I have a wedding Saturday, can Dana cover my close and I'll take her Tuesday",
      "trade my night rota with Ahmed",
      "see if someone will take my Sunday morning in exchange for one of theirs",
      "switch hours with Kim on the 14th",
    ],
  },
  {
    id: "family-tree",
    goal: "Add a relative to my family tree",
    site: "roots.example.com",
    site_title: "Example Roots Genealogy",
    pages: [{ title: "Family tree", headings: ["Add person", "Parents", "Spouse"] }],
    requests: [
      "put my great-grandmother Rosa Moretti, born 1902, into our genealogy",
      "I found my grandfather's brother in an old census, record him",
      "add Uncle Pete to the ancestry chart",
      "my cousin's new baby should be on our lineage",
    ],
  },
  {
    id: "kayak-rental",
    goal: "Rent a kayak for the afternoon",
    site: "paddle.example.com",
    site_title: "Example Paddle Sports",
    pages: [{ title: "Rentals", headings: ["Kayaks", "Canoes", "Half day"] }],
    requests: [
      "me and Sam want to go out on the lake Saturday after lunch",
      "hire a two-person canoe for 3 hours tomorrow",
      "get me a boat to paddle around the bay this afternoon",
      "reserve a sit-on-top for a few hours on Sunday",
    ],
  },
  {
    id: "bakery-cake",
    goal: "Order a custom birthday cake",
    site: "bakery.example.com",
    site_title: "Example Bakery",
    pages: [{ title: "Custom cakes", headings: ["Size and flavor", "Message on the cake", "Pickup date"] }],
    requests: [
      "Noah turns 7 on Friday, get a chocolate one with dinosaurs on it",
      "I need a cake that says Happy Retirement Linda for Thursday pickup",
      "order a two-tier vanilla sponge for 30 people",
      "can the baker do a unicorn design for my daughter's party",
    ],
  },
];

export const BLIND5_UNRELATED: readonly string[] = [
  "how do hearing aids actually work",
  "what's the difference between a patent and a trademark",
  "is a kayak or a canoe easier for beginners",
  "how did people clean chimneys in Victorian times",
  "what's the most visited museum in the world",
  "why do leaves change color in the fall",
  "how many moons does jupiter have",
  "give me a tongue twister",
  "what's the plural of octopus",
  "how long does it take to walk a mile",
  "who discovered penicillin",
  "which is heavier, a pound of feathers or a pound of bricks",
  "do sharks sleep",
  "how do I get rid of hiccups",
  "what language do they speak in Brazil",
];
