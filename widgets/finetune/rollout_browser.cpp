// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/finetune/rollout_browser.h"
#include "widgets/finetune/json_fields.h"

#include "core/common/error.h"
#include "core/tokenizer/tokenizer.h"
#include "core/train/rl_trainer.h"
#include "core/train/run_folder.h"
#include "widgets/finetune/rollout_model.h"
#include "widgets/finetune/run_watcher.h"
#include "widgets/generate/denoising_canvas.h"
#include "widgets/state/evaluation_message_text.h"
#include "widgets/state/model_runner.h"
#include "widgets/state/verdict_text.h"
#include "widgets/state/workbench_state.h"

#include <QComboBox>
#include <QEvent>
#include <QFile>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <filesystem>

namespace dice {

namespace {

using Json = nlohmann::json;

QPlainTextEdit* codeView(QWidget* parent) {
    auto* view = new QPlainTextEdit(parent);
    view->setReadOnly(true);
    view->setLineWrapMode(QPlainTextEdit::NoWrap);
    view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return view;
}

} // namespace

RolloutBrowser::RolloutBrowser(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_model(new RolloutModel(this))
    , m_proxy(new QSortFilterProxyModel(this)) {
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(RolloutModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

    m_stepLabel = new QLabel(this);
    m_steps = new QComboBox(this);
    m_steps->setMinimumContentsLength(6);
    m_filter = new QLineEdit(this);
    m_filter->setClearButtonEnabled(true);
    m_summary = new QLabel(this);
    m_table = new QTableView(this);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(RolloutModel::Flags, QHeaderView::Stretch);
    m_table->sortByColumn(RolloutModel::Group, Qt::AscendingOrder);

    m_details = new QTabWidget(this);
    auto* replay = new QWidget(m_details);
    m_canvas = new DenoisingCanvas(replay);
    m_timeline = new QSlider(Qt::Horizontal, replay);
    m_play = new QPushButton(replay);
    m_player = new QTimer(this);
    m_player->setInterval(80);
    m_tokenNote = new QLabel(replay);
    m_tokenNote->setWordWrap(true);
    auto* controls = new QHBoxLayout;
    controls->addWidget(m_play);
    controls->addWidget(m_timeline, 1);
    m_key = new ColorKey(replay);
    controls->addWidget(m_key);
    auto* replayLayout = new QVBoxLayout(replay);
    replayLayout->setContentsMargins(0, 0, 0, 0);
    replayLayout->addWidget(m_canvas, 1);
    replayLayout->addLayout(controls);
    replayLayout->addWidget(m_tokenNote);
    m_prompt = codeView(m_details);
    m_answer = codeView(m_details);
    m_candidate = codeView(m_details);
    m_message = codeView(m_details);
    auto* group = new QWidget(m_details);
    m_bestLabel = new QLabel(group);
    m_worstLabel = new QLabel(group);
    m_best = codeView(group);
    m_worst = codeView(group);
    auto* groupLayout = new QHBoxLayout(group);
    groupLayout->setContentsMargins(0, 0, 0, 0);
    for (auto [label, view] : {std::pair{m_bestLabel, m_best}, std::pair{m_worstLabel, m_worst}}) {
        auto* column = new QVBoxLayout;
        column->addWidget(label);
        column->addWidget(view, 1);
        groupLayout->addLayout(column, 1);
    }
    m_details->addTab(replay, QString());
    m_details->addTab(m_answer, QString());
    m_details->addTab(m_candidate, QString());
    m_details->addTab(m_prompt, QString());
    m_details->addTab(m_message, QString());
    m_details->addTab(group, QString());
    m_toProfile = new QPushButton(this);
    m_toInfill = new QPushButton(this);

    auto* top = new QHBoxLayout;
    top->addWidget(m_stepLabel);
    top->addWidget(m_steps);
    top->addWidget(m_filter, 1);
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addLayout(top);
    leftLayout->addWidget(m_table, 1);
    leftLayout->addWidget(m_summary);
    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_details, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_toInfill);
    buttons->addWidget(m_toProfile);
    rightLayout->addLayout(buttons);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    const auto tokenText = [this] {
        m_canvas->setTokenText([this](qint64 id) {
            if (m_tokenizer)
                return QString::fromStdString(m_tokenizer->tokenText(id));
            if (m_state->modelRunner()->isLoaded())
                return m_state->modelRunner()->tokenText(id);
            return QStringLiteral("#%1").arg(id);
        });
    };
    tokenText();
    m_canvas->setFollow(false);

    connect(m_steps, qOverload<int>(&QComboBox::activated), this,
            [this](int index) { showStep(m_steps->itemData(index).toLongLong()); });
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    openRow(current.row());
            });
    connect(&m_reading, &QFutureWatcher<std::vector<Json>>::finished, this, [this] {
        m_model->setRollouts(m_reading.result());
        m_opened = -1;
        int kept = 0, correct = 0;
        for (const Json& r : m_model->rollouts()) {
            kept += runjson::flag(r, "kept") ? 1 : 0;
            correct += RolloutModel::correctOf(r) ? 1 : 0;
        }
        m_summary->setText(tr("%n rollout(s), %1 correct, %2 kept", nullptr, m_model->rowCount())
                               .arg(correct)
                               .arg(kept));
        if (m_proxy->rowCount() > 0)
            m_table->selectRow(0);
        Q_EMIT rolloutsShown();
    });
    connect(&m_tokenizerLoad, &QFutureWatcher<std::shared_ptr<const Tokenizer>>::finished, this,
            [this, tokenText] {
                m_tokenizer = m_tokenizerLoad.result();
                // Texts drawn before the vocabulary arrived are forgotten.
                tokenText();
                m_tokenNote->setText(
                    m_tokenizer ? QString()
                                : tr("The run's model folder is not on this machine: tokens are "
                                     "shown with the loaded model's vocabulary, or as numbers."));
                m_canvas->setTrace(&m_trace);
                m_canvas->setStep(m_timeline->value());
            });
    connect(m_timeline, &QSlider::valueChanged, m_canvas, &DenoisingCanvas::setStep);
    connect(m_play, &QPushButton::clicked, this, &RolloutBrowser::play);
    connect(m_player, &QTimer::timeout, this, [this] {
        if (m_timeline->value() >= m_timeline->maximum()) {
            m_player->stop();
            retranslate();
            return;
        }
        m_timeline->setValue(m_timeline->value() + 1);
    });
    connect(m_toProfile, &QPushButton::clicked, this, [this] {
        if (const Json* r = openedRollout())
            Q_EMIT sendToProfile(runjson::text(*r, "task"), runjson::text(*r, "candidate"));
    });
    connect(m_toInfill, &QPushButton::clicked, this, [this] {
        if (const Json* r = openedRollout())
            Q_EMIT sendToInfill(runjson::text(*r, "candidate"));
    });
    retranslate();
    openRow(-1);
}

RolloutBrowser::~RolloutBrowser() {
    m_reading.waitForFinished();
    m_tokenizerLoad.waitForFinished();
}

void RolloutBrowser::setRun(RunWatcher* run) {
    if (m_run == run)
        return;
    if (m_run)
        disconnect(m_run, nullptr, this, nullptr);
    m_run = run;
    m_step = -1;
    m_model->setRollouts({});
    openRow(-1);
    if (m_run)
        connect(m_run, &RunWatcher::changed, this, &RolloutBrowser::refreshSteps);
    loadTokenizer();
    refreshSteps();
}

void RolloutBrowser::refreshSteps() {
    const qint64 shown = m_step;
    // Showing the newest step follows the run, as `tail -f` does; an older step stays.
    const bool newest =
        m_steps->count() == 0 || m_steps->itemData(m_steps->count() - 1).toLongLong() == shown;
    m_steps->clear();
    if (!m_run)
        return;
    for (auto step : m_run->run().rolloutSteps())
        m_steps->addItem(tr("step %1").arg(step), static_cast<qint64>(step));
    if (m_steps->count() == 0)
        return;
    const int at = m_steps->findData(shown);
    if (at >= 0 && !(newest && at != m_steps->count() - 1)) {
        m_steps->setCurrentIndex(at);
    } else {
        // A new run, or the first steps of one: its newest step.
        m_steps->setCurrentIndex(m_steps->count() - 1);
        showStep(m_steps->currentData().toLongLong());
    }
    if (m_model->rowCount() == 0 && m_tokenizerFor.isEmpty())
        loadTokenizer();
}

void RolloutBrowser::loadTokenizer() {
    if (!m_run)
        return;
    const auto& config = m_run->run().config();
    if (!config.is_object())
        return;
    const QString model = runjson::text(config, "model");
    if (model == m_tokenizerFor)
        return;
    m_tokenizerFor = model;
    std::string path =
        (std::filesystem::path(rlModelFolder(model.toStdString())) / "tokenizer.json").string();
    // A run copied back from a server names a model folder of that machine; its checkpoints
    // carry the same tokenizer.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        for (const Checkpoint& c : m_run->run().checkpoints())
            if (std::filesystem::is_regular_file(c.folder / "tokenizer.json", ec))
                path = (c.folder / "tokenizer.json").string();
    m_tokenizerLoad.waitForFinished();
    // Tens of megabytes of vocabulary and merges: loaded in the background.
    m_tokenizerLoad.setFuture(QtConcurrent::run([path]() -> std::shared_ptr<const Tokenizer> {
        try {
            return std::make_shared<const Tokenizer>(Tokenizer::load(path));
        } catch (const std::exception&) {
            return nullptr;
        }
    }));
}

void RolloutBrowser::showStep(qint64 step) {
    if (!m_run)
        return;
    m_step = step;
    const int at = m_steps->findData(step);
    if (at >= 0)
        m_steps->setCurrentIndex(at);
    const std::filesystem::path folder(QFile::encodeName(m_run->folder()).toStdString());
    m_reading.waitForFinished();
    m_reading.setFuture(QtConcurrent::run([folder, step] { return readRollouts(folder, step); }));
}

const Json* RolloutBrowser::openedRollout() const {
    if (m_opened < 0 || m_opened >= m_model->rowCount())
        return nullptr;
    return &m_model->rollout(m_opened);
}

void RolloutBrowser::showSource(int source, const Json* rollout) {
    QPlainTextEdit* view = source == 0 ? m_best : m_worst;
    QLabel* label = source == 0 ? m_bestLabel : m_worstLabel;
    if (!rollout) {
        view->clear();
        label->clear();
        return;
    }
    label->setText((source == 0 ? tr("Best: reward %1, %2") : tr("Worst: reward %1, %2"))
                       .arg(RolloutModel::rewardOf(*rollout), 0, 'f', 3)
                       .arg(verdictText(runjson::text(*rollout, "verdict"))));
    view->setPlainText(runjson::text(*rollout, "answer"));
}

void RolloutBrowser::openRow(int row) {
    m_player->stop();
    const QModelIndex index = m_proxy->index(row, 0);
    m_opened = index.isValid() ? m_proxy->mapToSource(index).row() : -1;
    const Json* r = openedRollout();
    m_toProfile->setEnabled(r != nullptr);
    m_toInfill->setEnabled(r != nullptr);
    m_play->setEnabled(r != nullptr);
    m_trace.clear();
    if (!r) {
        m_canvas->setTrace(nullptr);
        for (QPlainTextEdit* view : {m_prompt, m_answer, m_candidate, m_message})
            view->clear();
        showSource(0, nullptr);
        showSource(1, nullptr);
        m_timeline->setRange(0, 0);
        return;
    }
    m_prompt->setPlainText(runjson::text(*r, "prompt"));
    m_answer->setPlainText(runjson::text(*r, "answer"));
    m_candidate->setPlainText(runjson::text(*r, "candidate"));
    m_message->setPlainText(evaluationMessageText(runjson::text(*r, "message").toStdString()));
    const auto [best, worst] = m_model->bestAndWorst(m_opened);
    showSource(0, best >= 0 ? &m_model->rollout(best) : nullptr);
    showSource(1, worst >= 0 ? &m_model->rollout(worst) : nullptr);
    std::int64_t block = 4;
    if (m_run) {
        const auto& config = m_run->run().config();
        if (config.is_object() && config.contains("rollout") && config["rollout"].is_object())
            block = runjson::integer(config["rollout"], "block_length", 4);
    }
    try {
        m_trace = rolloutTrace(*r, block);
        m_tokenNote->setText(m_tokenizer || !m_run ? QString() : m_tokenNote->text());
    } catch (const Error& e) {
        m_trace.clear();
        m_tokenNote->setText(
            tr("This rollout's trace cannot be replayed: %1").arg(QString::fromUtf8(e.what())));
    }
    m_canvas->setTrace(&m_trace);
    m_key->setSteps(m_trace.stepCount());
    m_timeline->setRange(0, m_trace.stepCount());
    m_timeline->setValue(m_trace.stepCount());
    m_canvas->setStep(m_trace.stepCount());
}

void RolloutBrowser::play() {
    if (m_player->isActive()) {
        m_player->stop();
    } else {
        if (m_timeline->value() >= m_timeline->maximum())
            m_timeline->setValue(0);
        m_player->start();
    }
    retranslate();
}

QString RolloutBrowser::bestText() const {
    return m_best->toPlainText();
}

QString RolloutBrowser::worstText() const {
    return m_worst->toPlainText();
}

QString RolloutBrowser::answerText() const {
    return m_answer->toPlainText();
}

void RolloutBrowser::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void RolloutBrowser::retranslate() {
    m_stepLabel->setText(tr("Rollouts of"));
    m_filter->setPlaceholderText(tr("Filter by task, verdict or flag"));
    m_details->setTabText(0, tr("Denoising"));
    m_details->setTabText(1, tr("Answer"));
    m_details->setTabText(2, tr("Candidate"));
    m_details->setTabText(3, tr("Prompt"));
    m_details->setTabText(4, tr("Judge's message"));
    m_details->setTabText(5, tr("Best and worst of the group"));
    m_play->setText(m_player->isActive() ? tr("Pause") : tr("Replay"));
    m_toProfile->setText(tr("Send to Profile"));
    m_toInfill->setText(tr("Send to Infill"));
    for (int i = 0; i < m_steps->count(); ++i)
        m_steps->setItemText(i, tr("step %1").arg(m_steps->itemData(i).toLongLong()));
}

} // namespace dice
