// The sidebar's expand/collapse toggles are <summary> elements holding only an icon. Give each an
// accessible name from its chapter's link, so a screen reader can tell them apart (WCAG 4.1.2).
function tensorViewsLabelNavToggles() {
  for (const summary of document.querySelectorAll("li.has-children > details > summary")) {
    const link = summary.closest("li").querySelector(":scope > a");
    const name = link ? link.textContent.trim() : "this chapter";
    summary.setAttribute("aria-label", `Show or hide the pages of ${name}`);
  }
}
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", tensorViewsLabelNavToggles);
} else {
  tensorViewsLabelNavToggles();
}
