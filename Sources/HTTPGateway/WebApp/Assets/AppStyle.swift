/// The web app's one style sheet: system fonts, a grid of cards that fits 375 px as well as
/// 1440 px, the system's dark mode, focus rings for keyboard users. Served by rnm itself
/// (`/app/assets/app.css`), never from elsewhere.
enum AppStyle {
    static let css = """
        :root { color-scheme: light dark; --bg: #fbfbfd; --fg: #1c1c22; --muted: #55586a; --card: #ffffff;
          --line: #d9dbe3; --accent: #0b5fd0; --accent-fg: #ffffff; --warn-bg: #fff4d6; --warn-fg: #5a4100;
          --alive: #1c7a35; --dead: #b3261e; --unknown: #55586a; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #111216; --fg: #ececf1; --muted: #b4b6c4; --card: #1b1c22; --line: #33353f;
            --accent: #7fb0ff; --accent-fg: #0d0f14; --warn-bg: #3b2f0b; --warn-fg: #ffe3a1;
            --alive: #7ddc93; --dead: #ff9a90; --unknown: #b4b6c4; }
        }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--fg);
          font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        a { color: var(--accent); }
        a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible {
          outline: 3px solid var(--accent); outline-offset: 2px; }
        .skip { position: absolute; left: -999px; }
        .skip:focus { left: 8px; top: 8px; background: var(--card); padding: 8px; z-index: 2; }
        header.top { border-bottom: 1px solid var(--line); background: var(--card); }
        header.top nav { display: flex; flex-wrap: wrap; gap: 4px 16px; max-width: 1200px; margin: 0 auto;
          padding: 12px 16px; align-items: center; }
        header.top .brand { font-weight: 700; text-decoration: none; color: var(--fg); margin-right: 8px; }
        header.top nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
        main { max-width: 1200px; margin: 0 auto; padding: 16px; }
        h1 { font-size: 1.6rem; margin: 8px 0 16px; overflow-wrap: anywhere; }
        h2 { font-size: 1.2rem; margin: 24px 0 8px; }
        .notice { background: var(--warn-bg); color: var(--warn-fg); border-radius: 8px; padding: 10px 14px;
          margin: 0 0 16px; overflow-wrap: anywhere; }
        .notice p { margin: 0; } .notice details, td details { font-size: .85rem; margin-top: 4px; }
        summary { cursor: pointer; }
        .empty { border-left: 4px solid var(--line); padding: 2px 12px; } .empty p { margin: 6px 0; }
        /* The filters fold into one line at a phone's width (the script folds them when none is
           set); wider, they are always open and the line is not shown. */
        details.filter-panel > summary { display: none; }
        form.filters { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: end; margin-bottom: 16px; }
        form.filters label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); }
        input, select, button { font: inherit; color: var(--fg); background: var(--card);
          border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; min-height: 40px; }
        input { width: 11rem; max-width: 100%; }
        button, .button { background: var(--accent); color: var(--accent-fg); border-color: var(--accent);
          cursor: pointer; text-decoration: none; display: inline-flex; align-items: center; }
        button.quiet { background: var(--card); color: var(--accent); }
        .actions { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0 16px; }
        .actions form { margin: 0; }
        .grid { list-style: none; padding: 0; margin: 0; display: grid; gap: 12px;
          grid-template-columns: repeat(auto-fill, minmax(min(100%, 220px), 1fr)); }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; overflow: hidden;
          display: flex; flex-direction: column; height: 100%; }
        .card img { width: 100%; height: auto; aspect-ratio: 1; display: block; background: var(--line); }
        .card .body { padding: 10px 12px; }
        .card .title { display: block; font-size: 1.05rem; margin: 0 0 4px; overflow-wrap: anywhere; }
        .card p { margin: 0; color: var(--muted); font-size: .92rem; overflow-wrap: anywhere; }
        .status::before { content: "●"; margin-right: 4px; }
        .status-alive::before { color: var(--alive); } .status-dead::before { color: var(--dead); }
        .status-unknown::before { color: var(--unknown); }
        /* At a phone's width a list is a column of compact cards: a small avatar beside the name
           and its first line of facts, several to a screen (a full-width avatar made each card a
           screen). Names wrap, never cut. */
        @media (max-width: 560px) {
          .grid { grid-template-columns: minmax(0, 1fr); gap: 8px; }
          .card { flex-direction: row; align-items: center; }
          .card img { width: 56px; height: 56px; flex: none; margin: 8px 0 8px 8px; border-radius: 50%; }
          .card .body { padding: 8px 12px; min-width: 0; }
          .card img + .body p + p { display: none; }
          details.filter-panel > summary { display: list-item; min-height: 40px; padding: 8px 0; color: var(--accent); }
          form.filters { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); }
          form.filters input, form.filters select { width: 100%; }
        }
        .pager { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 20px 0; }
        .detail { display: grid; gap: 16px; grid-template-columns: minmax(0, 300px) minmax(0, 1fr); }
        .detail img { width: 100%; max-width: 300px; height: auto; border-radius: 10px; }
        @media (max-width: 640px) { .detail { grid-template-columns: minmax(0, 1fr); } }
        dl.fields { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 4px 16px; margin: 0; }
        dl.fields dt { color: var(--muted); } dl.fields dd { margin: 0; overflow-wrap: anywhere; }
        ul.plain { padding-left: 1.2rem; } ul.plain li { margin: 4px 0; overflow-wrap: anywhere; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top;
          overflow-wrap: break-word; }
        th, td.number { white-space: nowrap; }
        /* A table of few rows and long cells, at a phone's width: each row a block, each cell
           under its column's name (data-label), so nothing is squeezed into a narrow column. */
        @media (max-width: 560px) {
          table.stack thead { display: none; }
          table.stack tr { display: block; border-bottom: 1px solid var(--line); padding: 6px 0; }
          table.stack td { display: block; border: 0; padding: 2px 8px; }
          table.stack td::before { content: attr(data-label); display: block; color: var(--muted);
            font-size: .85rem; }
        }
        /* The chart: label, bar, number per status, at the page's text size; the bars share the
           width left, so it fits 375 px as well as 1440 px. */
        .chart { display: grid; grid-template-columns: max-content minmax(0, 1fr) max-content; gap: 8px 12px;
          align-items: center; max-width: 720px; }
        .chart-track { display: block; width: 100%; height: 1.25rem; }
        .chart-value { text-align: right; font-variant-numeric: tabular-nums; }
        .chart rect.status-alive { fill: var(--alive); } .chart rect.status-dead { fill: var(--dead); }
        .chart rect.status-unknown { fill: var(--unknown); }
        progress { width: 100%; height: 18px; }
        .muted { color: var(--muted); }
        footer { max-width: 1200px; margin: 0 auto; padding: 16px; color: var(--muted); font-size: .85rem; }
        """
}
