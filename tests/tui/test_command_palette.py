"""SlashCommandProvider: what the palette offers for slash commands and what choosing one does."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit

from hermes_tui.screens.command_palette import SlashCommandProvider
from hermes_tui.screens.main import MainScreen

from .helpers import wait_until
from .test_screens import MainHost


async def discovered(provider: SlashCommandProvider) -> list[DiscoveryHit]:
    return [hit async for hit in provider.discover() if isinstance(hit, DiscoveryHit)]


async def searched(provider: SlashCommandProvider, query: str) -> list[Hit]:
    return [hit async for hit in provider.search(query) if isinstance(hit, Hit)]


async def test_choosing_runs_a_bare_command_and_prefills_one_that_takes_arguments() -> None:
    app = MainHost()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        main = app.main
        provider = SlashCommandProvider(main)
        hits = await discovered(provider)
        assert [hit.text for hit in hits][:3] == ["/new", "/resume", "/branch"]  # the registry's order
        runs, prefills = [], []
        for hit in hits:
            main.prompt.value = ""
            before = len(app.submitted)
            if hit.text == "/edit":  # the prompt answers it: the draft goes to $EDITOR ("true" here) and comes back
                main.prompt.value = "a draft"
                hit.command()
                await pilot.pause()
                assert main.prompt.value == "a draft" and len(app.submitted) == before
                continue
            hit.command()
            await pilot.pause()
            if main.prompt.value:
                assert main.prompt.value == f"{hit.text} " and len(app.submitted) == before
                prefills.append(hit.text)
            else:
                await wait_until(pilot, lambda b=before: len(app.submitted) == b + 1, what=f"{hit.text} sent")
                assert app.submitted[-1] == hit.text
                runs.append(hit.text)
        assert {"/new", "/resume", "/branch", "/title", "/undo", "/compress"} <= set(prefills)
        assert {"/usage", "/help", "/quit", "/history", "/retry", "/sessions"} <= set(runs)
        assert isinstance(app.screen, MainScreen)


async def test_searching_finds_aliases_and_says_what_they_stand_for() -> None:
    app = MainHost()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        provider = SlashCommandProvider(app.main)
        hits = await searched(provider, "fork")
        assert [hit.text for hit in hits] == ["/fork"]
        assert hits[0].help == "same as /branch: copy this conversation into a new branch"
        compress = await searched(provider, "comp")
        assert compress[0].text == "/compress"
        assert "[focus|here [N]|preview]" in str(compress[0].match_display)  # the arguments, shown as plain text
        assert await searched(provider, "zzzz") == []
