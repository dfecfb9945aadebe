// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/finetune/run_setup.h"

#include "core/common/error.h"
#include "core/train/rl_config.h"
#include "widgets/state/model_runner.h"
#include "widgets/state/workbench_state.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleValidator>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

namespace dice {

using Json = nlohmann::json;

struct RunSetupConfig {
    Json json; // resolved: toJson of what the trainer read
};

struct RunSetup::Field {
    QLabel* label = nullptr;
    const char* text = nullptr;
    std::function<void()> load;
    std::function<void()> store;
};

namespace {

// The phase of a kind in a resolved configuration, or null.
Json* phaseOf(Json& config, const char* kind) {
    for (auto& p : config["phases"])
        if (p.value("kind", std::string()) == kind)
            return &p;
    return nullptr;
}

QString joined(const Json& list) {
    QStringList words;
    if (list.is_array())
        for (const auto& w : list)
            if (w.is_string())
                words << QString::fromStdString(w.get<std::string>());
    return words.join(QStringLiteral(", "));
}

Json splitWords(const QString& text) {
    Json list = Json::array();
    for (const QString& w :
         text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts))
        list.push_back(w.toStdString());
    return list;
}

QSpinBox* wholeBox(QWidget* parent, int low, int high) {
    auto* box = new QSpinBox(parent);
    box->setRange(low, high);
    box->setAccelerated(true);
    return box;
}

QLineEdit* realBox(QWidget* parent) {
    auto* edit = new QLineEdit(parent);
    auto* validator = new QDoubleValidator(edit);
    validator->setNotation(QDoubleValidator::ScientificNotation);
    validator->setLocale(QLocale::c());
    edit->setValidator(validator);
    return edit;
}

// A field with its buttons after it, as one row of a form.
QWidget* withButtons(QWidget* parent, QWidget* field, std::initializer_list<QWidget*> buttons) {
    auto* row = new QWidget(parent);
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(field, 1);
    for (QWidget* button : buttons)
        layout->addWidget(button);
    return row;
}

QString realText(const Json& value) {
    return value.is_number() ? QString::number(value.get<double>(), 'g', 6) : QString();
}

Json realValue(const QLineEdit* edit) {
    bool ok = false;
    const double value = QLocale::c().toDouble(edit->text().trimmed(), &ok);
    return ok ? Json(value) : Json(edit->text().trimmed().toStdString());
}

} // namespace

RunSetup::RunSetup(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_config(std::make_unique<RunSetupConfig>()) {
    auto* content = new QWidget;
    auto* grid = new QGridLayout(content);
    const auto box = [&](int row, int column) {
        auto* group = new QGroupBox(content);
        new QFormLayout(group);
        grid->addWidget(group, row, column);
        m_boxes << group;
        return group;
    };

    m_presetLabel = new QLabel(this);
    m_preset = new QComboBox(this);
    m_preset->addItem(QString(), QStringLiteral("paper"));
    m_preset->addItem(QString(), QStringLiteral("cpu-demo"));

    // The model and the run folder.
    QGroupBox* general = box(0, 0);
    m_model = new QLineEdit(general);
    m_browseModel = new QPushButton(general);
    m_loadedModel = new QPushButton(general);
    addField(
        general, QT_TR_NOOP("Model"), withButtons(general, m_model, {m_browseModel, m_loadedModel}),
        [this] { m_model->setText(QString::fromStdString(m_config->json.value("model", ""))); },
        [this] { m_config->json["model"] = m_model->text().trimmed().toStdString(); });
    m_output = new QLineEdit(general);
    m_browseOutput = new QPushButton(general);
    addField(
        general, QT_TR_NOOP("Run folder"), withButtons(general, m_output, {m_browseOutput}),
        [this] { m_output->setText(QString::fromStdString(m_config->json.value("output", ""))); },
        [this] { m_config->json["output"] = m_output->text().trimmed().toStdString(); });
    auto* device = new QComboBox(general);
    device->setEditable(true);
    device->addItems({QStringLiteral("cpu"), QStringLiteral("cuda"), QStringLiteral("cuda:0"),
                      QStringLiteral("cuda:1")});
    addField(
        general, QT_TR_NOOP("Device"), device,
        [this, device] {
            device->setCurrentText(QString::fromStdString(m_config->json.value("device", "")));
        },
        [this, device] { m_config->json["device"] = device->currentText().toStdString(); });
    auto* judges = new QLineEdit(general);
    judges->setToolTip(tr("GPU indices of the evaluation workers; an index repeated gives that "
                          "GPU more workers (for example 0,0,1)."));
    addField(
        general, QT_TR_NOOP("Judging GPUs"), judges,
        [this, judges] {
            QStringList ids;
            for (const auto& d : m_config->json.at("judge").at("devices"))
                ids << QString::number(d.get<int>());
            judges->setText(ids.join(QLatin1Char(',')));
        },
        [this, judges] {
            Json ids = Json::array();
            for (const QString& w : judges->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
                bool ok = false;
                const int id = w.trimmed().toInt(&ok);
                ids.push_back(ok ? Json(id) : Json(w.trimmed().toStdString()));
            }
            m_config->json["judge"]["devices"] = ids;
        });
    const auto whole = [this](QGroupBox* group, const char* label, int low, int high,
                              const Json::json_pointer& at) {
        QSpinBox* spin = wholeBox(group, low, high);
        addField(
            group, label, spin,
            [this, spin, at] {
                const Json& c = m_config->json;
                spin->setValue(c.contains(at) ? c.at(at).get<int>() : 0);
            },
            [this, spin, at] { m_config->json[at] = spin->value(); });
        return spin;
    };
    const auto real = [this](QGroupBox* group, const char* label, const Json::json_pointer& at) {
        QLineEdit* edit = realBox(group);
        addField(
            group, label, edit,
            [this, edit, at] {
                const Json& c = m_config->json;
                edit->setText(c.contains(at) ? realText(c.at(at)) : QString());
            },
            [this, edit, at] { m_config->json[at] = realValue(edit); });
        return edit;
    };
    const auto choice = [this](QGroupBox* group, const char* label, const QStringList& values,
                               const Json::json_pointer& at) {
        auto* combo = new QComboBox(group);
        combo->addItems(values);
        addField(
            group, label, combo,
            [this, combo, at] {
                combo->setCurrentText(QString::fromStdString(m_config->json.value(at, "")));
            },
            [this, combo, at] { m_config->json[at] = combo->currentText().toStdString(); });
        return combo;
    };
    const auto flag = [this](QGroupBox* group, const char* label, const Json::json_pointer& at) {
        auto* check = new QCheckBox(group);
        addField(
            group, label, check,
            [this, check, at] { check->setChecked(m_config->json.value(at, false)); },
            [this, check, at] { m_config->json[at] = check->isChecked(); });
        return check;
    };
    whole(general, QT_TR_NOOP("CPU threads (0: all)"), 0, 512, Json::json_pointer("/threads"));
    whole(general, QT_TR_NOOP("Seed"), 0, 2147483647, Json::json_pointer("/seed"));

    // The two phases and the data of each.
    QGroupBox* phases = box(0, 1);
    const auto phase = [this, phases](const char* kind, const char* stepsLabel,
                                      const char* dataLabel, const char* namesLabel) {
        QSpinBox* steps = wholeBox(phases, 0, 1000000);
        auto* tasks = new QLineEdit(phases);
        tasks->setToolTip(tr("builtin (the workbench's suite), a corpus folder of dice data "
                             "synth, or a folder of imported KernelBench problems"));
        auto* names = new QLineEdit(phases);
        names->setToolTip(tr("Only these tasks (names separated by commas); empty: every task."));
        const std::string k = kind;
        addField(
            phases, stepsLabel, steps,
            [this, steps, k] {
                const Json* p = phaseOf(m_config->json, k.c_str());
                steps->setValue(p ? p->at("steps").get<int>() : 0);
            },
            [this, steps, k] {
                if (Json* p = phaseOf(m_config->json, k.c_str())) {
                    (*p)["steps"] = steps->value();
                } else if (steps->value() > 0) {
                    Json added = {{"kind", k}, {"steps", steps->value()}, {"data", "builtin"}};
                    auto& list = m_config->json["phases"];
                    // Infilling comes first, as in the paper.
                    if (k == "infill")
                        list.insert(list.begin(), added);
                    else
                        list.push_back(added);
                }
            });
        addField(
            phases, dataLabel, tasks,
            [this, tasks, k] {
                const Json* p = phaseOf(m_config->json, k.c_str());
                const bool data = p && p->at("data").is_object();
                tasks->setText(data ? QString::fromStdString(p->at("data").value("tasks", ""))
                                    : QString());
            },
            [this, tasks, k] {
                if (Json* p = phaseOf(m_config->json, k.c_str())) {
                    if (!(*p)["data"].is_object())
                        (*p)["data"] = Json::object();
                    const QString text = tasks->text().trimmed();
                    (*p)["data"]["tasks"] =
                        text.isEmpty() ? std::string("builtin") : text.toStdString();
                }
            });
        addField(
            phases, namesLabel, names,
            [this, names, k] {
                const Json* p = phaseOf(m_config->json, k.c_str());
                const bool data = p && p->at("data").is_object();
                names->setText(data ? joined(p->at("data").value("names", Json::array()))
                                    : QString());
            },
            [this, names, k] {
                if (Json* p = phaseOf(m_config->json, k.c_str()); p && (*p)["data"].is_object())
                    (*p)["data"]["names"] = splitWords(names->text());
            });
    };
    phase("infill", QT_TR_NOOP("Kernel-infilling steps"), QT_TR_NOOP("Infilling tasks"),
          QT_TR_NOOP("Infilling task names"));
    phase("end_to_end", QT_TR_NOOP("End-to-end steps"), QT_TR_NOOP("End-to-end tasks"),
          QT_TR_NOOP("End-to-end task names"));
    choice(phases, QT_TR_NOOP("Schedule"),
           {QStringLiteral("sequential"), QStringLiteral("adaptive")},
           Json::json_pointer("/schedule"));
    whole(phases, QT_TR_NOOP("Tasks per step"), 1, 65536, Json::json_pointer("/tasks_per_step"));
    whole(phases, QT_TR_NOOP("Rollouts per task"), 2, 4096,
          Json::json_pointer("/rollouts_per_task"));

    // How rollouts are decoded.
    QGroupBox* rollouts = box(1, 0);
    whole(rollouts, QT_TR_NOOP("Block length"), 1, 1024,
          Json::json_pointer("/rollout/block_length"));
    whole(rollouts, QT_TR_NOOP("Denoising steps per block"), 1, 1024,
          Json::json_pointer("/rollout/steps"));
    choice(rollouts, QT_TR_NOOP("Remasking"),
           {QStringLiteral("low_confidence_dynamic"), QStringLiteral("low_confidence_static"),
            QStringLiteral("sequential"), QStringLiteral("entropy_bounded")},
           Json::json_pointer("/rollout/strategy"));
    real(rollouts, QT_TR_NOOP("Dynamic threshold"), Json::json_pointer("/rollout/threshold"));
    real(rollouts, QT_TR_NOOP("Temperature"), Json::json_pointer("/rollout/temperature"));
    whole(rollouts, QT_TR_NOOP("Most tokens per answer"), 1, 1 << 20,
          Json::json_pointer("/rollout/max_tokens"));
    whole(rollouts, QT_TR_NOOP("Sequences decoded together"), 1, 65536,
          Json::json_pointer("/rollout/batch"));

    // The reward.
    QGroupBox* reward = box(1, 1);
    choice(reward, QT_TR_NOOP("Reward"),
           {QStringLiteral("correctness"), QStringLiteral("timed"), QStringLiteral("compile")},
           Json::json_pointer("/reward/mode"));
    real(reward, QT_TR_NOOP("Tolerance"), Json::json_pointer("/reward/tolerance"));
    real(reward, QT_TR_NOOP("Speedup weight"), Json::json_pointer("/reward/speedup_weight"));
    real(reward, QT_TR_NOOP("Speedup clip"), Json::json_pointer("/reward/speedup_clip"));
    real(reward, QT_TR_NOOP("Coverage weight"), Json::json_pointer("/reward/coverage_weight"));
    whole(reward, QT_TR_NOOP("Compile threads"), 1, 256,
          Json::json_pointer("/judge/compile_threads"));

    // The policy update.
    QGroupBox* optimiser = box(2, 0);
    real(optimiser, QT_TR_NOOP("Learning rate"), Json::json_pointer("/optimizer/learning_rate"));
    whole(optimiser, QT_TR_NOOP("Rollouts per pass"), 1, 4096,
          Json::json_pointer("/optimizer/micro_batch"));
    whole(optimiser, QT_TR_NOOP("Passes per optimizer step"), 1, 65536,
          Json::json_pointer("/optimizer/accumulation"));
    real(optimiser, QT_TR_NOOP("Gradient clipping"), Json::json_pointer("/optimizer/clip_norm"));
    real(optimiser, QT_TR_NOOP("PPO clip"), Json::json_pointer("/trace_rl/clip_epsilon"));
    real(optimiser, QT_TR_NOOP("KL weight"), Json::json_pointer("/trace_rl/kl_beta"));
    flag(optimiser, QT_TR_NOOP("bfloat16 on the GPU"),
         Json::json_pointer("/optimizer/mixed_precision"))
        ->setToolTip(
            tr("Forward passes in bfloat16 autocast; weights and optimizer stay float32."));
    QCheckBox* checkpointing = flag(optimiser, QT_TR_NOOP("Gradient checkpointing"),
                                    Json::json_pointer("/optimizer/gradient_checkpointing"));
    checkpointing->setObjectName(QStringLiteral("GradientCheckpointing"));
    checkpointing->setToolTip(tr("Run each layer again in the backward pass instead of keeping its "
                                 "activations: about a third more arithmetic, much less memory."));

    // Held-out evaluation and checkpoints.
    QGroupBox* evaluation = box(2, 1);
    whole(evaluation, QT_TR_NOOP("Evaluate every (steps)"), 0, 1000000,
          Json::json_pointer("/eval/every"));
    auto* evalTasks = new QLineEdit(evaluation);
    evalTasks->setToolTip(tr("Held-out tasks: builtin or a folder; empty: no evaluation."));
    addField(
        evaluation, QT_TR_NOOP("Held-out tasks"), evalTasks,
        [this, evalTasks] {
            const Json& eval = m_config->json.at("eval");
            const Json data = eval.contains("data") ? eval.at("data") : Json();
            evalTasks->setText(data.is_object() ? QString::fromStdString(data.value("tasks", ""))
                                                : QString());
        },
        [this, evalTasks] {
            const QString text = evalTasks->text().trimmed();
            if (text.isEmpty())
                m_config->json["eval"].erase("data");
            else
                m_config->json["eval"]["data"]["tasks"] = text.toStdString();
        });
    auto* evalNames = new QLineEdit(evaluation);
    addField(
        evaluation, QT_TR_NOOP("Held-out task names"), evalNames,
        [this, evalNames] {
            const Json& eval = m_config->json.at("eval");
            const Json data = eval.contains("data") ? eval.at("data") : Json();
            evalNames->setText(data.is_object() ? joined(data.value("names", Json::array())) : "");
        },
        [this, evalNames] {
            if (m_config->json["eval"].contains("data"))
                m_config->json["eval"]["data"]["names"] = splitWords(evalNames->text());
        });
    whole(evaluation, QT_TR_NOOP("Held-out most tokens"), 1, 1 << 20,
          Json::json_pointer("/eval/max_tokens"));
    whole(evaluation, QT_TR_NOOP("Checkpoint every (steps)"), 0, 1000000,
          Json::json_pointer("/save_every"));
    whole(evaluation, QT_TR_NOOP("Checkpoints kept"), 1, 1000,
          Json::json_pointer("/keep_checkpoints"));
    for (int c = 0; c < 2; ++c)
        grid->setColumnStretch(c, 1);

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(content);

    m_commandLabel = new QLabel(this);
    m_command = new QLineEdit(this);
    m_command->setReadOnly(true);
    m_command->setObjectName(QStringLiteral("RunCommand"));
    m_copy = new QPushButton(this);
    m_save = new QPushButton(this);
    m_open = new QPushButton(this);
    m_preview = new QPlainTextEdit(this);
    m_preview->setReadOnly(true);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_problemLabel = new QLabel(this);
    m_problemLabel->setWordWrap(true);
    m_problemLabel->setObjectName(QStringLiteral("SetupProblem"));
    m_problemLabel->setStyleSheet(QStringLiteral("color: #b00020;"));

    auto* presetRow = new QHBoxLayout;
    presetRow->addWidget(m_presetLabel);
    presetRow->addWidget(m_preset);
    presetRow->addStretch(1);
    presetRow->addWidget(m_open);
    presetRow->addWidget(m_save);
    auto* commandRow = new QHBoxLayout;
    commandRow->addWidget(m_commandLabel);
    commandRow->addWidget(m_command, 1);
    commandRow->addWidget(m_copy);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(presetRow);
    // The form above, the file it makes below: the user drags the line between them.
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(scroll);
    split->addWidget(m_preview);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);
    layout->addWidget(m_problemLabel);
    layout->addLayout(commandRow);

    connect(m_preset, qOverload<int>(&QComboBox::activated), this,
            [this](int index) { applyPreset(m_preset->itemData(index).toString()); });
    connect(m_browseModel, &QPushButton::clicked, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(this, tr("Model folder"));
        if (!folder.isEmpty())
            setModel(folder);
    });
    connect(m_loadedModel, &QPushButton::clicked, this, [this] {
        if (m_state->modelRunner()->isLoaded())
            setModel(QString::fromStdString(m_state->modelRunner()->summary().folder));
    });
    connect(m_browseOutput, &QPushButton::clicked, this, [this] {
        const QString folder = QFileDialog::getExistingDirectory(this, tr("Run folder"));
        if (!folder.isEmpty())
            setOutputFolder(folder);
    });
    connect(m_copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(m_command->text()); });
    connect(m_save, &QPushButton::clicked, this, &RunSetup::saveConfiguration);
    connect(m_open, &QPushButton::clicked, this, &RunSetup::loadConfigurationFile);
    connect(m_state, &WorkbenchState::modelChanged, this,
            [this] { m_loadedModel->setEnabled(m_state->modelRunner()->isLoaded()); });
    m_loadedModel->setEnabled(m_state->modelRunner()->isLoaded());

    retranslate();
    applyPreset(QStringLiteral("cpu-demo"));
}

RunSetup::~RunSetup() = default;

void RunSetup::addField(QGroupBox* box, const char* label, QWidget* editor,
                        std::function<void()> load, std::function<void()> store) {
    auto field = std::make_shared<Field>();
    field->label = new QLabel(box);
    field->text = label;
    field->load = std::move(load);
    field->store = std::move(store);
    static_cast<QFormLayout*>(box->layout())->addRow(field->label, editor);
    m_fields << field;
    const auto onEdit = [this] { edited(); };
    if (auto* spin = qobject_cast<QSpinBox*>(editor))
        connect(spin, qOverload<int>(&QSpinBox::valueChanged), this, onEdit);
    else if (auto* line = qobject_cast<QLineEdit*>(editor))
        connect(line, &QLineEdit::textEdited, this, onEdit);
    else if (auto* combo = qobject_cast<QComboBox*>(editor))
        connect(combo, &QComboBox::currentTextChanged, this, onEdit);
    else if (auto* check = qobject_cast<QCheckBox*>(editor))
        connect(check, &QCheckBox::toggled, this, onEdit);
    else
        for (auto* inner : editor->findChildren<QLineEdit*>())
            connect(inner, &QLineEdit::textEdited, this, onEdit);
}

void RunSetup::applyPreset(const QString& name) {
    const QString output = m_output->text();
    try {
        m_config->json = toJson(rlConfigFromJson({{"preset", name.toStdString()}}));
    } catch (const Error& e) {
        m_problem = QString::fromUtf8(e.what());
        return;
    }
    // A preset changes the recipe, not where the run goes.
    if (!output.isEmpty())
        m_config->json["output"] = output.toStdString();
    m_preset->setCurrentIndex(qMax(0, m_preset->findData(name)));
    loadFields();
    edited();
}

bool RunSetup::setConfiguration(const QString& json, QString* error) {
    try {
        const Json parsed = Json::parse(json.toStdString());
        m_config->json = toJson(rlConfigFromJson(parsed));
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    loadFields();
    edited();
    return true;
}

void RunSetup::loadFields() {
    m_loading = true;
    for (const auto& field : m_fields)
        field->load();
    m_loading = false;
}

void RunSetup::edited() {
    if (m_loading)
        return;
    for (const auto& field : m_fields)
        field->store();
    auto& phases = m_config->json["phases"];
    for (auto it = phases.begin(); it != phases.end();)
        it = (*it)["steps"].get<int>() > 0 ? it + 1 : phases.erase(it);
    // The form keeps a phase of no step as no phase; the trainer needs at least one listed.
    if (phases.empty())
        phases.push_back({{"kind", "end_to_end"}, {"steps", 0}, {"data", "builtin"}});
    m_problem.clear();
    try {
        rlConfigFromJson(m_config->json);
    } catch (const std::exception& e) {
        m_problem = QString::fromUtf8(e.what());
    }
    if (m_problem.isEmpty() && outputFolder().isEmpty())
        m_problem = tr("Choose a run folder.");
    m_problemLabel->setText(m_problem);
    m_problemLabel->setVisible(!m_problem.isEmpty());
    m_preview->setPlainText(configuration());
    Q_EMIT changed();
}

QString RunSetup::configuration() const {
    return QString::fromStdString(m_config->json.dump(2));
}

QString RunSetup::problem() const {
    return m_problem;
}

QString RunSetup::outputFolder() const {
    return m_output->text().trimmed();
}

void RunSetup::setOutputFolder(const QString& folder) {
    m_output->setText(folder);
    edited();
}

void RunSetup::setModel(const QString& model) {
    m_model->setText(model);
    edited();
}

void RunSetup::setCommandLine(const QString& command) {
    m_command->setText(command);
}

void RunSetup::saveConfiguration() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the run's configuration"),
                                                      QString(), tr("JSON files (*.json)"));
    if (path.isEmpty())
        return;
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(configuration().toUtf8() + "\n") < 0)
        m_problemLabel->setText(tr("Could not write %1: %2").arg(path, file.errorString()));
}

void RunSetup::loadConfigurationFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a run's configuration"),
                                                      QString(), tr("JSON files (*.json)"));
    if (path.isEmpty())
        return;
    QFile file(path);
    QString error;
    if (!file.open(QIODevice::ReadOnly))
        error = file.errorString();
    else if (file.size() > (4 << 20))
        error = tr("the file is larger than 4 MiB");
    else
        setConfiguration(QString::fromUtf8(file.readAll()), &error);
    if (!error.isEmpty()) {
        m_problemLabel->setText(tr("%1 cannot be used: %2").arg(path, error));
        m_problemLabel->setVisible(true);
    }
}

void RunSetup::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void RunSetup::retranslate() {
    m_presetLabel->setText(tr("Start from"));
    m_preset->setItemText(0, tr("The paper's recipe (GPU)"));
    m_preset->setItemText(1, tr("CPU demo (DICE-nano, minutes on two cores)"));
    const QStringList titles = {tr("Model and run"), tr("Phases and data"),
                                tr("Rollouts"),      tr("Reward"),
                                tr("Policy update"), tr("Held-out evaluation and checkpoints")};
    for (int i = 0; i < m_boxes.size() && i < titles.size(); ++i)
        m_boxes[i]->setTitle(titles[i]);
    for (const auto& field : m_fields)
        field->label->setText(tr(field->text));
    m_browseModel->setText(tr("Browse…"));
    m_loadedModel->setText(tr("Loaded model"));
    m_browseOutput->setText(tr("Browse…"));
    m_commandLabel->setText(tr("Command"));
    m_copy->setText(tr("Copy"));
    m_save->setText(tr("Save configuration…"));
    m_open->setText(tr("Open configuration…"));
    m_model->setPlaceholderText(tr("embedded, or a model folder"));
}

} // namespace dice
