/// The web app's one script, for what must be live: the sync's progress bar, and times in the
/// reader's own time zone. Every screen works without it (the sync's form posts and the page
/// shows the progress when reloaded; times read in UTC, saying so).
enum AppScript {
    static let javaScript = """
        "use strict";
        document.addEventListener("DOMContentLoaded", () => {
          // Times: the page says them in UTC ("26 Nov 2026, 19:07 UTC"); here the same layout in
          // the reader's zone, the exact timestamp kept in datetime and shown on hover.
          const local = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric",
            hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" });
          for (const time of document.querySelectorAll("time[datetime]")) {
            const date = new Date(time.dateTime);
            if (Number.isNaN(date.getTime())) continue;
            time.title = time.dateTime;
            time.textContent = local.format(date);
          }
          // At a phone's width a list's filters fold into their "Filters" line unless some are
          // set, so that the cards come first; wider, they are open (their line is not shown).
          const panel = document.querySelector("details.filter-panel");
          const narrow = matchMedia("(max-width: 560px)");
          if (panel) {
            panel.open = panel.hasAttribute("data-kept") || !narrow.matches;
            narrow.addEventListener("change", () => { if (!narrow.matches) panel.open = true; });
          }
          const form = document.querySelector("form[data-sync]");
          const progress = document.querySelector("[data-progress]");
          if (!form || !progress) return;
          const bar = progress.querySelector("progress");
          const text = progress.querySelector("[data-progress-text]");
          const show = (state) => {
            progress.hidden = !(state.running || state.finished);
            if (state.total > 0) { bar.max = state.total; bar.value = state.done; }
            else { bar.removeAttribute("value"); }
            text.textContent = state.summary;
          };
          const poll = async () => {
            let state;
            try {
              const answer = await fetch("\(WebRoute.syncProgress.path)", {
                headers: { "Accept": "application/json" },
              });
              state = await answer.json();
            } catch (error) {
              // rnm restarting, or a moment without the network: ask again.
              setTimeout(poll, 1000);
              return;
            }
            show(state);
            if (state.running) { setTimeout(poll, 400); } else if (state.finished) { location.reload(); }
          };
          form.addEventListener("submit", async (event) => {
            event.preventDefault();
            form.querySelector("button").disabled = true;
            const answer = await fetch(form.action, { method: "POST", body: new URLSearchParams(new FormData(form)),
              headers: { "Accept": "application/json" } });
            // 409: a sync is running already (another tab): follow it.
            if (!answer.ok && answer.status !== 409) {
              text.textContent = "The sync could not start (" + answer.status + ")."; progress.hidden = false;
              form.querySelector("button").disabled = false; return; }
            poll();
          });
          if (progress.dataset.running === "true") poll();
        });
        """
}
