// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCommandLineOption>

class QCommandLineParser;

namespace dice {

class MainWindow;
class WorkbenchState;

// What dice-workbench can be told on its command line to do by itself, for the screenshots and
// the smoke checks: open a work area, a source file or a stored run; follow an RL run folder in
// Fine-tune, on one of its pages, with its rollouts of a step; generate, or fill every hole, once
// the model is loaded; show a profile's counters; save a picture of the window and quit.
class WorkbenchScript {
public:
    // Adds the options to parser, which is read before open() and start().
    explicit WorkbenchScript(QCommandLineParser& parser);

    // Before the window is shown: the area, the source file and the run. False (with a warning)
    // when the file or the run cannot be opened.
    bool open(MainWindow& window) const;
    // Once the window is shown; withModel says whether a model is being loaded.
    void start(MainWindow& window, WorkbenchState& state, bool withModel) const;

private:
    const QCommandLineParser& m_parser;
    QCommandLineOption m_area;
    QCommandLineOption m_screenshot;
    QCommandLineOption m_quitAfter;
    QCommandLineOption m_generate;
    QCommandLineOption m_fill;
    QCommandLineOption m_source;
    QCommandLineOption m_run;
    QCommandLineOption m_rlRun;
    QCommandLineOption m_rlCompare;
    QCommandLineOption m_rlPage;
    QCommandLineOption m_rlStep;
    QCommandLineOption m_counters;
};

} // namespace dice
