// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/finetune/finetune_area.h"
#include "widgets/finetune/json_fields.h"

#include "widgets/finetune/checkpoint_view.h"
#include "widgets/finetune/rollout_browser.h"
#include "widgets/finetune/run_curves.h"
#include "widgets/finetune/run_setup.h"
#include "widgets/finetune/run_watcher.h"
#include "widgets/finetune/trainer_process.h"
#include "widgets/state/workbench_state.h"

#include <QDir>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

namespace dice {

namespace {

const char* const kRunKey = "finetune/run";
const char* const kCompareKey = "finetune/compare";
const char* const kSetupKey = "finetune/setup";
const char* const kPageKey = "finetune/page";

// Distinct colours for overlaid runs, the current run first.
const QColor kRunColors[] = {QColor(0x21, 0x66, 0xac), QColor(0xd6, 0x60, 0x4d),
                             QColor(0x1b, 0x9e, 0x77), QColor(0x75, 0x70, 0xb3),
                             QColor(0xe6, 0xab, 0x02), QColor(0x66, 0x66, 0x66)};

} // namespace

FinetuneArea::FinetuneArea(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_trainer(new TrainerProcess(this))
    , m_setup(new RunSetup(state, this))
    , m_curves(new RunCurves(this))
    , m_rollouts(new RolloutBrowser(state, this))
    , m_checkpoints(new CheckpointView(state, this))
    , m_log(new QPlainTextEdit(this))
    , m_logTimer(new QTimer(this))
    , m_tabs(new QTabWidget(this)) {
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setObjectName(QStringLiteral("TrainerLog"));
    m_tabs->addTab(m_setup, QString());
    m_tabs->addTab(m_curves, QString());
    m_tabs->addTab(m_rollouts, QString());
    m_tabs->addTab(m_checkpoints, QString());
    m_tabs->addTab(m_log, QString());

    m_runLabel = new QLabel(this);
    m_runLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_runLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_open = new QPushButton(this);
    m_compare = new QPushButton(this);
    m_clearCompare = new QPushButton(this);
    m_start = new QPushButton(this);
    m_pause = new QPushButton(this);
    m_resume = new QPushButton(this);
    m_stop = new QPushButton(this);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(220);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setObjectName(QStringLiteral("RunStatus"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* runRow = new QHBoxLayout;
    runRow->addWidget(m_open);
    runRow->addWidget(m_compare);
    runRow->addWidget(m_clearCompare);
    runRow->addWidget(m_runLabel, 1);
    auto* controlRow = new QHBoxLayout;
    controlRow->addWidget(m_start);
    controlRow->addWidget(m_pause);
    controlRow->addWidget(m_resume);
    controlRow->addWidget(m_stop);
    controlRow->addWidget(m_progress);
    controlRow->addWidget(m_status, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(runRow);
    layout->addLayout(controlRow);
    layout->addWidget(m_tabs, 1);

    connect(m_open, &QPushButton::clicked, this, [this] { chooseRun(false); });
    connect(m_compare, &QPushButton::clicked, this, [this] { chooseRun(true); });
    connect(m_clearCompare, &QPushButton::clicked, this, &FinetuneArea::clearComparisons);
    connect(m_start, &QPushButton::clicked, this, &FinetuneArea::start);
    connect(m_pause, &QPushButton::clicked, this, &FinetuneArea::pause);
    connect(m_resume, &QPushButton::clicked, this, &FinetuneArea::resume);
    connect(m_stop, &QPushButton::clicked, this, &FinetuneArea::stop);
    connect(m_trainer, &TrainerProcess::ended, this, [this] {
        if (RunWatcher* run = currentRun())
            run->pollNow();
        followLog();
        updateControls();
    });
    connect(m_setup, &RunSetup::changed, this, [this] {
        const QString folder = m_setup->outputFolder();
        m_setup->setCommandLine(m_trainer->commandLine(TrainerProcess::configFile(folder), folder));
        updateControls();
    });
    connect(m_rollouts, &RolloutBrowser::sendToProfile, this, &FinetuneArea::sendToProfile);
    connect(m_rollouts, &RolloutBrowser::sendToInfill, this, &FinetuneArea::sendToInfill);
    connect(m_checkpoints, &CheckpointView::openModel, this, &FinetuneArea::openModel);
    connect(m_checkpoints, &CheckpointView::startFrom, this, [this](const QString& folder) {
        m_setup->setModel(folder);
        showPage(Setup);
    });
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] { saveSettings(); });
    m_logTimer->setInterval(1000);
    connect(m_logTimer, &QTimer::timeout, this, &FinetuneArea::followLog);
    m_logTimer->start();

    const QSettings settings;
    const QString saved = settings.value(QLatin1String(kSetupKey)).toString();
    if (!saved.isEmpty())
        m_setup->setConfiguration(saved, nullptr);
    const QString run = settings.value(QLatin1String(kRunKey)).toString();
    if (!run.isEmpty() && QFileInfo(run).isDir()) {
        openRun(run);
        for (const QString& other : settings.value(QLatin1String(kCompareKey)).toStringList())
            if (QFileInfo(other).isDir())
                addComparison(other);
    }
    m_tabs->setCurrentIndex(settings.value(QLatin1String(kPageKey), 0).toInt());
    retranslate();
}

FinetuneArea::~FinetuneArea() = default;

RunWatcher* FinetuneArea::currentRun() const {
    return m_runs.isEmpty() ? nullptr : m_runs.first();
}

bool FinetuneArea::openRun(const QString& folder) {
    if (!QFileInfo(folder).isDir()) {
        showProblem(tr("%1 is not a folder.").arg(QDir::toNativeSeparators(folder)));
        return false;
    }
    auto* run = new RunWatcher(folder, this);
    QList<RunWatcher*> runs{run};
    for (RunWatcher* other : m_runs.mid(1))
        if (other->folder() != run->folder())
            runs << other;
        else
            other->deleteLater();
    if (RunWatcher* old = currentRun())
        old->deleteLater();
    m_problem.clear();
    m_logFile = QDir(run->folder()).filePath(QStringLiteral("trainer.log"));
    m_logOffset = 0;
    m_log->clear();
    setRuns(runs);
    followLog();
    return true;
}

bool FinetuneArea::addComparison(const QString& folder) {
    if (!QFileInfo(folder).isDir() || m_runs.isEmpty())
        return false;
    const QString clean = QDir::cleanPath(folder);
    for (RunWatcher* run : m_runs)
        if (run->folder() == clean)
            return false;
    QList<RunWatcher*> runs = m_runs;
    runs << new RunWatcher(folder, this);
    setRuns(runs);
    return true;
}

void FinetuneArea::clearComparisons() {
    QList<RunWatcher*> runs;
    for (int i = 0; i < m_runs.size(); ++i) {
        if (i == 0)
            runs << m_runs[i];
        else
            m_runs[i]->deleteLater();
    }
    setRuns(runs);
}

void FinetuneArea::setRuns(const QList<RunWatcher*>& runs) {
    m_runs = runs;
    for (int i = 0; i < m_runs.size(); ++i) {
        m_runs[i]->setColor(kRunColors[i % std::size(kRunColors)]);
        disconnect(m_runs[i], &RunWatcher::changed, this, nullptr);
        connect(m_runs[i], &RunWatcher::changed, this, &FinetuneArea::runChanged);
        m_runs[i]->pollNow();
    }
    m_curves->setRuns(m_runs);
    m_rollouts->setRun(currentRun());
    m_checkpoints->setRun(currentRun());
    saveSettings();
    runChanged();
}

void FinetuneArea::runChanged() {
    m_curves->refresh();
    updateControls();
}

void FinetuneArea::chooseRun(bool comparison) {
    const QString folder = QFileDialog::getExistingDirectory(
        this, comparison ? tr("Run folder to compare") : tr("Run folder"),
        currentRun() ? QFileInfo(currentRun()->folder()).path() : QString());
    if (folder.isEmpty())
        return;
    if (comparison)
        addComparison(folder);
    else
        openRun(folder);
}

bool FinetuneArea::canStart() const {
    return !m_trainer->running() && m_setup->problem().isEmpty() &&
           !(currentRun() && currentRun()->folder() == QDir::cleanPath(m_setup->outputFolder()) &&
             RunWatcher::activeState(currentRun()->state()) && currentRun()->trainerAlive());
}

bool FinetuneArea::canPause() const {
    const RunWatcher* run = currentRun();
    return run &&
           (m_trainer->running() || (RunWatcher::activeState(run->state()) && run->trainerAlive()));
}

bool FinetuneArea::canResume() const {
    const RunWatcher* run = currentRun();
    if (!run || m_trainer->running() || run->state().isEmpty() ||
        run->state() == QLatin1String("finished"))
        return false;
    return !(RunWatcher::activeState(run->state()) && run->trainerAlive());
}

bool FinetuneArea::start() {
    if (!canStart()) {
        showProblem(m_setup->problem().isEmpty() ? tr("A trainer is running on this run.")
                                                 : m_setup->problem());
        return false;
    }
    const QString folder = QDir::cleanPath(m_setup->outputFolder());
    QString error;
    if (!m_trainer->startWith(folder, m_setup->configuration().toUtf8() + "\n", &error)) {
        showProblem(error);
        return false;
    }
    QSettings().setValue(QLatin1String(kSetupKey), m_setup->configuration());
    openRun(folder);
    showPage(Curves);
    return true;
}

bool FinetuneArea::pause() {
    return requestEnd(true);
}

bool FinetuneArea::stop() {
    return requestEnd(false);
}

bool FinetuneArea::requestEnd(bool pause) {
    QString error;
    if (!canPause() ||
        !TrainerProcess::requestEnd(currentRun()->folder(),
                                    pause ? TrainerProcess::End::Pause : TrainerProcess::End::Stop,
                                    &error)) {
        showProblem(error);
        return false;
    }
    updateControls();
    return true;
}

bool FinetuneArea::resume() {
    if (!canResume())
        return false;
    const QString folder = currentRun()->folder();
    // The configuration this workbench started it with, or the trainer's resolved one for a run
    // started elsewhere; the folder given again, as it may have moved since.
    QString config = TrainerProcess::configFile(folder);
    if (!QFileInfo::exists(config))
        config = QDir(folder).filePath(QStringLiteral("config.json"));
    QString error;
    if (!m_trainer->start(config, folder, &error)) {
        showProblem(error);
        return false;
    }
    m_problem.clear();
    updateControls();
    return true;
}

void FinetuneArea::showPage(Page page) {
    m_tabs->setCurrentIndex(static_cast<int>(page));
}

void FinetuneArea::showProblem(const QString& message) {
    m_problem = message;
    updateControls();
}

QString FinetuneArea::statusText() const {
    return m_status->text();
}

QString FinetuneArea::logText() const {
    return m_log->toPlainText();
}

void FinetuneArea::followLog() {
    if (m_logFile.isEmpty())
        return;
    QFile file(m_logFile);
    if (!file.open(QIODevice::ReadOnly))
        return;
    if (file.size() < m_logOffset) {
        m_logOffset = 0;
        m_log->clear();
    }
    if (file.size() == m_logOffset || !file.seek(m_logOffset))
        return;
    // At most a megabyte a tick: a log that grew huge is caught up with over a few seconds.
    const QByteArray chunk = file.read(1 << 20);
    const int end = chunk.lastIndexOf('\n');
    if (end < 0)
        return;
    m_logOffset += end + 1;
    m_log->appendPlainText(QString::fromUtf8(chunk.left(end)));
}

void FinetuneArea::updateControls() {
    const RunWatcher* run = currentRun();
    m_start->setEnabled(canStart());
    m_pause->setEnabled(canPause());
    m_stop->setEnabled(canPause());
    m_resume->setEnabled(canResume());
    m_compare->setEnabled(run != nullptr);
    m_clearCompare->setEnabled(m_runs.size() > 1);
    m_runLabel->setText(run ? tr("Run: %1").arg(QDir::toNativeSeparators(run->folder()))
                            : tr("No run is open: set one up and start it, or open a run folder."));
    if (!m_problem.isEmpty()) {
        m_status->setText(m_problem);
        return;
    }
    if (!run) {
        m_progress->setRange(0, 1);
        m_progress->setValue(0);
        m_status->setText(tr("The trainer runs as its own process and writes the run folder; "
                             "this area follows it."));
        return;
    }
    const nlohmann::json status =
        run->run().status().is_object() ? run->run().status() : nlohmann::json::object();
    // Whole numbers of the status (its seconds are fractional).
    const auto integer = [](const nlohmann::json& from, const char* key) {
        return static_cast<qint64>(runjson::number(from, key));
    };
    const QString state = run->state();
    const qint64 steps = integer(status, "steps");
    const qint64 step = integer(status, "step");
    const bool active = RunWatcher::activeState(state);
    m_progress->setRange(0, static_cast<int>(std::max<qint64>(steps, 1)));
    m_progress->setValue(static_cast<int>(std::max<qint64>(0, active ? step - 1 : step)));
    const QString seconds = QString::number(integer(status, "seconds"));
    QString doing;
    if (state == QLatin1String("sampling"))
        doing = tr("sampling: %1 of %2 rollouts")
                    .arg(integer(status, "sampled"))
                    .arg(integer(status, "rollouts"));
    else if (state == QLatin1String("judging"))
        doing = tr("judging: %1 of %2 rollouts")
                    .arg(integer(status, "judged"))
                    .arg(integer(status, "rollouts"));
    else if (state == QLatin1String("updating"))
        doing = tr("updating: %1 of %2 micro-batches")
                    .arg(integer(status, "updated"))
                    .arg(integer(status, "micro_batches"));
    else if (state == QLatin1String("evaluating"))
        doing = tr("evaluating on the held-out tasks");
    else if (state == QLatin1String("starting"))
        doing = tr("loading the model and the tasks");
    const QString phase = runjson::text(status, "phase") == QLatin1String("infill")
                              ? tr("kernel infilling")
                              : tr("end to end");
    QString text;
    if (active && !m_trainer->running() && !run->trainerAlive() &&
        !runjson::text(status, "host").isEmpty()) {
        text = tr("The trainer of this run is no longer running (killed, or its machine "
                  "restarted) at step %1; Resume continues from the newest checkpoint.")
                   .arg(step);
    } else if (active) {
        text = tr("Step %1 of %2 (%3): %4, %5 s.").arg(step).arg(steps).arg(phase, doing, seconds);
        if (QFileInfo::exists(QDir(run->folder()).filePath(QStringLiteral("PAUSE"))))
            text += QLatin1Char(' ') + tr("Pausing after this step.");
        else if (QFileInfo::exists(QDir(run->folder()).filePath(QStringLiteral("STOP"))))
            text += QLatin1Char(' ') + tr("Stopping after this step.");
    } else if (state == QLatin1String("finished")) {
        text = tr("Finished: %1 steps in %2 s.").arg(step).arg(seconds);
    } else if (state == QLatin1String("paused") || state == QLatin1String("stopped") ||
               state == QLatin1String("cancelled")) {
        const QString how = state == QLatin1String("paused")    ? tr("Paused")
                            : state == QLatin1String("stopped") ? tr("Stopped")
                                                                : tr("Cancelled");
        text = tr("%1 after step %2 of %3, with a checkpoint; Resume continues it.")
                   .arg(how)
                   .arg(step)
                   .arg(steps);
    } else if (state == QLatin1String("failed")) {
        text = tr("The trainer failed: %1").arg(runjson::text(status, "error"));
    } else if (m_trainer->running()) {
        text = tr("The trainer is starting.");
    } else {
        text = tr("This folder holds no status yet.");
    }
    for (const std::string& problem : run->run().problems())
        text += QLatin1Char(' ') + tr("(%1)").arg(QString::fromStdString(problem));
    m_status->setText(text);
}

void FinetuneArea::saveSettings() const {
    QSettings settings;
    if (const RunWatcher* run = currentRun())
        settings.setValue(QLatin1String(kRunKey), run->folder());
    QStringList others;
    for (const RunWatcher* run : m_runs.mid(1))
        others << run->folder();
    settings.setValue(QLatin1String(kCompareKey), others);
    settings.setValue(QLatin1String(kPageKey), m_tabs->currentIndex());
}

void FinetuneArea::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void FinetuneArea::retranslate() {
    m_tabs->setTabText(Setup, tr("Set-up"));
    m_tabs->setTabText(Curves, tr("Curves"));
    m_tabs->setTabText(Rollouts, tr("Rollouts"));
    m_tabs->setTabText(Checkpoints, tr("Checkpoints"));
    m_tabs->setTabText(Log, tr("Trainer log"));
    m_open->setText(tr("Open run…"));
    m_compare->setText(tr("Compare with…"));
    m_clearCompare->setText(tr("Clear comparison"));
    m_start->setText(tr("Start"));
    m_pause->setText(tr("Pause"));
    m_resume->setText(tr("Resume"));
    m_stop->setText(tr("Stop"));
    m_pause->setToolTip(tr("End the run after its current step, with a checkpoint."));
    m_stop->setToolTip(tr("End the run after its current step, with a checkpoint; unlike a "
                          "pause it is not meant to be resumed."));
    updateControls();
}

} // namespace dice
