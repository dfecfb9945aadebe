// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/finetune/checkpoint_view.h"
#include "widgets/finetune/json_fields.h"

#include "core/train/run_folder.h"
#include "widgets/finetune/run_watcher.h"
#include "widgets/finetune/trainer_process.h"
#include "widgets/state/workbench_state.h"

#include <QDir>
#include <QEvent>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include <map>

namespace dice {

namespace {

using Json = nlohmann::json;

QString scoresFolder(const QString& run, const QString& name) {
    return QDir(run).filePath(QStringLiteral("scores/") + name);
}

// The first evaluation line of a scoring run, or null.
Json scoreOf(const QString& folder) {
    QFile file(QDir(folder).filePath(QStringLiteral("eval.jsonl")));
    if (!file.open(QIODevice::ReadOnly))
        return nullptr;
    const QByteArray line = file.readLine(16 << 20);
    const Json value = Json::parse(line.toStdString(), nullptr, false);
    return value.is_object() ? value : Json(nullptr);
}

QString share(int part, int whole) {
    return whole > 0 ? QStringLiteral("%1% (%2/%3)")
                           .arg(100.0 * part / whole, 0, 'f', 1)
                           .arg(part)
                           .arg(whole)
                     : QStringLiteral("–");
}

} // namespace

CheckpointView::CheckpointView(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_table(new QTableWidget(0, 4, this))
    , m_comparison(new QTableWidget(0, 6, this))
    , m_scorer(new TrainerProcess(this)) {
    for (QTableWidget* table : {m_table, m_comparison}) {
        table->setEditTriggers(QAbstractItemView::NoEditTriggers);
        table->setSelectionBehavior(QAbstractItemView::SelectRows);
        table->setSelectionMode(QAbstractItemView::SingleSelection);
        table->verticalHeader()->setVisible(false);
        table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        table->horizontalHeader()->setStretchLastSection(true);
    }
    m_open = new QPushButton(this);
    m_startFrom = new QPushButton(this);
    m_score = new QPushButton(this);
    m_scoreStart = new QPushButton(this);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_comparisonLabel = new QLabel(this);
    m_comparisonLabel->setWordWrap(true);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_open);
    buttons->addWidget(m_startFrom);
    buttons->addWidget(m_score);
    buttons->addWidget(m_scoreStart);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table, 2);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(m_comparisonLabel);
    layout->addWidget(m_comparison, 1);

    connect(m_table, &QTableWidget::itemSelectionChanged, this, &CheckpointView::updateButtons);
    connect(m_open, &QPushButton::clicked, this, [this] {
        if (!selectedFolder().isEmpty())
            Q_EMIT openModel(selectedFolder());
    });
    connect(m_startFrom, &QPushButton::clicked, this, [this] {
        if (!selectedFolder().isEmpty())
            Q_EMIT startFrom(selectedFolder());
    });
    connect(m_score, &QPushButton::clicked, this, [this] {
        const QString folder = selectedFolder();
        if (!folder.isEmpty())
            score(QFileInfo(folder).fileName(), folder);
    });
    connect(m_scoreStart, &QPushButton::clicked, this, [this] {
        if (!m_run || !m_run->run().config().is_object())
            return;
        score(QStringLiteral("start"), runjson::text(m_run->run().config(), "model"));
    });
    connect(m_scorer, &TrainerProcess::ended, this, [this] {
        const Json status = [this] {
            QFile file(QDir(scoresFolder(m_run ? m_run->folder() : QString(), m_scoringName))
                           .filePath(QStringLiteral("status.json")));
            if (!file.open(QIODevice::ReadOnly))
                return Json(nullptr);
            return Json::parse(file.readAll().toStdString(), nullptr, false);
        }();
        const bool failed = runjson::text(status, "state") != QLatin1String("finished");
        m_status->setText(
            failed ? tr("Scoring %1 failed: %2")
                         .arg(m_scoringName,
                              status.is_object()
                                  ? runjson::text(status, "error")
                                  : tr("it ended without a status; see %1")
                                        .arg(QDir::toNativeSeparators(
                                            QDir(scoresFolder(m_run ? m_run->folder() : QString(),
                                                              m_scoringName))
                                                .filePath(QStringLiteral("trainer.log")))))
                   : tr("%1 is scored.").arg(m_scoringName));
        m_scoringName.clear();
        refreshComparison();
        updateButtons();
        Q_EMIT scoringEnded();
    });
    retranslate();
}

void CheckpointView::setRun(RunWatcher* run) {
    if (m_run == run)
        return;
    if (m_run)
        disconnect(m_run, nullptr, this, nullptr);
    m_run = run;
    if (m_run)
        connect(m_run, &RunWatcher::changed, this, &CheckpointView::refresh);
    refresh();
}

void CheckpointView::refresh() {
    const QString selected = selectedFolder();
    m_table->setRowCount(0);
    if (m_run) {
        std::map<std::int64_t, Json> evaluations;
        for (const Json& e : m_run->run().evaluations())
            if (e.is_object() && e.contains("step") && e["step"].is_number_integer())
                evaluations[e["step"].get<std::int64_t>()] = e;
        struct Row {
            QString name;
            std::int64_t step;
            QString folder;
        };
        QList<Row> rows;
        for (const Checkpoint& c : m_run->run().checkpoints())
            rows << Row{tr("step %1").arg(c.step), c.step,
                        QFile::decodeName(c.folder.string().c_str())};
        const QString final = QDir(m_run->folder()).filePath(QStringLiteral("model"));
        if (QFileInfo::exists(QDir(final).filePath(QStringLiteral("config.json"))))
            rows << Row{tr("final model"),
                        m_run->run().metrics().empty()
                            ? 0
                            : runjson::integer(m_run->run().metrics().back(), "step"),
                        final};
        for (const Row& row : rows) {
            const int r = m_table->rowCount();
            m_table->insertRow(r);
            const auto it = evaluations.find(row.step);
            QString heldOut = tr("not evaluated at this step");
            QString reward;
            if (it != evaluations.end()) {
                heldOut = share(static_cast<int>(runjson::integer(it->second, "correct")),
                                static_cast<int>(runjson::integer(it->second, "tasks")));
                reward = QString::number(runjson::number(it->second, "mean_reward"), 'f', 3);
            }
            auto* name = new QTableWidgetItem(row.name);
            name->setData(Qt::UserRole, row.folder);
            m_table->setItem(r, 0, name);
            m_table->setItem(r, 1, new QTableWidgetItem(heldOut));
            m_table->setItem(r, 2, new QTableWidgetItem(reward));
            m_table->setItem(r, 3, new QTableWidgetItem(QDir::toNativeSeparators(row.folder)));
            if (row.folder == selected)
                m_table->selectRow(r);
        }
    }
    refreshComparison();
    updateButtons();
}

void CheckpointView::refreshComparison() {
    m_comparison->setRowCount(0);
    if (!m_run)
        return;
    const QDir scores(QDir(m_run->folder()).filePath(QStringLiteral("scores")));
    QStringList names = scores.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    // The starting model first, then the checkpoints in order.
    if (names.removeAll(QStringLiteral("start")) > 0)
        names.prepend(QStringLiteral("start"));
    for (const QString& name : names) {
        const Json score = scoreOf(scores.filePath(name));
        if (!score.is_object())
            continue;
        int compiled = 0;
        std::map<int, std::pair<int, int>> levels;
        const Json* found = runjson::find(score, "results");
        const Json results = found && found->is_array() ? *found : Json::array();
        for (const Json& t : results) {
            if (!t.is_object())
                continue;
            const QString verdict = runjson::text(t, "verdict");
            compiled += verdict != QLatin1String("compile_error") &&
                                verdict != QLatin1String("invalid_candidate")
                            ? 1
                            : 0;
            const Task* task = m_state->suite().find(runjson::text(t, "task").toStdString());
            const int level =
                static_cast<int>(runjson::integer(t, "level", task ? task->level : 0));
            auto& [asked, right] = levels[level];
            ++asked;
            const Json* correct = runjson::find(t, "correct");
            right += (correct && correct->is_boolean() ? correct->get<bool>()
                                                       : runjson::number(t, "reward") > 0)
                         ? 1
                         : 0;
        }
        const int tasks = static_cast<int>(runjson::integer(score, "tasks"));
        const int r = m_comparison->rowCount();
        m_comparison->insertRow(r);
        const QString label = name == QLatin1String("start") ? tr("the starting model") : name;
        m_comparison->setItem(r, 0, new QTableWidgetItem(label));
        m_comparison->setItem(r, 1, new QTableWidgetItem(share(compiled, tasks)));
        m_comparison->setItem(r, 2,
                              new QTableWidgetItem(share(
                                  static_cast<int>(runjson::integer(score, "correct")), tasks)));
        for (int level = 1; level <= 3; ++level) {
            const auto it = levels.find(level);
            m_comparison->setItem(
                r, 2 + level,
                new QTableWidgetItem(it == levels.end()
                                         ? QStringLiteral("–")
                                         : share(it->second.second, it->second.first)));
        }
    }
}

QString CheckpointView::checkpointFolder(int row) const {
    const QTableWidgetItem* item = m_table->item(row, 0);
    return item ? item->data(Qt::UserRole).toString() : QString();
}

QString CheckpointView::selectedFolder() const {
    const auto rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString() : checkpointFolder(rows.first().row());
}

bool CheckpointView::scoring() const {
    return m_scorer->running();
}

QString CheckpointView::statusText() const {
    return m_status->text();
}

bool CheckpointView::score(const QString& name, const QString& model) {
    if (!m_run || !m_run->run().config().is_object() || scoring())
        return false;
    // The run's own settings (device, reward, decoding), its model replaced and no step.
    Json config = m_run->run().config();
    const QString folder = scoresFolder(m_run->folder(), name);
    config["model"] = model.toStdString();
    config["output"] = QFile::encodeName(folder).toStdString();
    config["phases"] = Json::array({{{"kind", "end_to_end"}, {"steps", 0}}});
    Json eval =
        config.contains("eval") && config["eval"].is_object() ? config["eval"] : Json::object();
    eval["every"] = 1;
    eval["data"] = "builtin";
    config["eval"] = eval;
    QDir(folder).removeRecursively();
    QString error;
    m_scorer->startWith(folder, QByteArray::fromStdString(config.dump(2) + "\n"), &error);
    if (!error.isEmpty()) {
        m_status->setText(tr("Scoring %1 could not start: %2").arg(name, error));
        return false;
    }
    m_scoringName = name;
    m_status->setText(tr("Scoring %1 on the built-in suite (greedy, judged as the run judges); "
                         "its log is in %2.")
                          .arg(name, QDir::toNativeSeparators(
                                         QDir(folder).filePath(QStringLiteral("trainer.log")))));
    updateButtons();
    return true;
}

void CheckpointView::updateButtons() {
    const bool selected = !selectedFolder().isEmpty();
    m_open->setEnabled(selected);
    m_startFrom->setEnabled(selected);
    m_score->setEnabled(selected && !scoring());
    m_scoreStart->setEnabled(m_run && !scoring());
}

void CheckpointView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void CheckpointView::retranslate() {
    m_table->setHorizontalHeaderLabels(
        {tr("Checkpoint"), tr("Held-out: correct"), tr("Held-out: mean reward"), tr("Folder")});
    m_comparison->setHorizontalHeaderLabels({tr("Model"), tr("Compiled"), tr("Correct (Exec)"),
                                             tr("Level 1"), tr("Level 2"), tr("Level 3")});
    m_open->setText(tr("Open as the current model"));
    m_startFrom->setText(tr("Start a run from it"));
    m_score->setText(tr("Score on the built-in suite"));
    m_scoreStart->setText(tr("Score the starting model"));
    m_comparisonLabel->setText(
        tr("Scores on the built-in suite, greedy decoding, judged as the run judges (with the "
           "compile reward: compiled and the host part's dry run right). Correct is the paper's "
           "Exec; speedups (fast_p) need the timed reward and a GPU."));
    refresh();
}

} // namespace dice
